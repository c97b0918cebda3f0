import { join } from "node:path";
import type { Address, Hex } from "viem";
import { readJsonRecord, writeJsonAtomic } from "../../lib/json-file.ts";
import {
  SERVICE_CONTRACTS,
  type ServiceContractKey,
  type ServiceSet,
  type ServiceSettings,
  type TierJson,
  tierJson,
} from "./service-set.ts";

/**
 * `<out>/deployment.json`: what a deployment made and where. Written before anything is sent
 * (the addresses it is about to create) and again once every step has a receipt, so a run that
 * died halfway leaves a record the next run checks the chain against.
 */
export type ServiceDeploymentRecord = {
  chainId: number;
  deployer: Address;
  salt: Hex;
  contracts: Record<ServiceContractKey, { address: Address; block?: number; transaction?: Hex }>;
  settings: {
    owner: Address;
    relayer: Address;
    platform: Address;
    treasuryShareBps: number;
    tiers: TierJson[];
  };
  /** The first block holding one of the contracts: the indexer's BSC_START_BLOCK. */
  startBlock?: number;
  /** True once the chain matched the settings at the end of a run. */
  complete: boolean;
  updatedAt: string;
};

export function serviceRecordPath(outDir: string): string {
  return join(outDir, "deployment.json");
}

/** Reads the record, or `undefined` when there is none. */
export function readServiceRecord(outDir: string): ServiceDeploymentRecord | undefined {
  return readJsonRecord<ServiceDeploymentRecord>(serviceRecordPath(outDir), "deployment record");
}

/** Writes the record atomically (temp file + rename). */
export function writeServiceRecord(outDir: string, record: ServiceDeploymentRecord): void {
  writeJsonAtomic(serviceRecordPath(outDir), record, { pretty: true });
}

/** Settings as JSON (amounts as wei strings). */
export function settingsJson(s: ServiceSettings): ServiceDeploymentRecord["settings"] {
  return {
    owner: s.owner,
    relayer: s.relayer,
    platform: s.platform,
    treasuryShareBps: s.treasuryShareBps,
    tiers: s.tiers.map(tierJson),
  };
}

/**
 * Why a record and the chain (or this run) disagree, one line each; empty when they agree.
 * A record written by another key or salt names other addresses; a contract it says exists
 * but the chain does not hold means another chain, or an RPC behind it.
 *
 * @example
 * const problems = recordConflicts(record, { chainId, set, deployed, path });
 * if (problems.length) throw new Error(problems[0]);
 */
export function recordConflicts(
  record: ServiceDeploymentRecord,
  now: {
    chainId: number;
    deployer: Address;
    set: ServiceSet;
    deployed: Record<ServiceContractKey, boolean>;
    path: string;
  },
): string[] {
  const out: string[] = [];
  if (record.chainId !== now.chainId) {
    out.push(
      `${now.path} is a deployment on chain ${record.chainId}, this RPC is chain ${now.chainId}`,
    );
    return out;
  }
  if (record.deployer.toLowerCase() !== now.deployer.toLowerCase()) {
    out.push(
      `${now.path} was deployed by ${record.deployer}, this key is ${now.deployer}: use that key, or another --out for a new deployment`,
    );
    return out;
  }
  for (const key of SERVICE_CONTRACTS) {
    const was = record.contracts[key];
    const is = now.set[key];
    if (was.address.toLowerCase() !== is.address) {
      out.push(
        `${now.path} names ${is.name} at ${was.address}, these inputs give ${is.address} (another salt or external address?)`,
      );
    } else if (was.block !== undefined && !now.deployed[key]) {
      out.push(
        `${now.path} says ${is.name} was created at ${was.address} in block ${was.block}, the chain has no code there (wrong RPC, or one behind)`,
      );
    }
  }
  return out;
}
