import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Account, Address, Chain, Hex, PublicClient, Transport, WalletClient } from "viem";
import { loadBuild } from "../compile.ts";
import { type DeployPlan, type DeployStep, planDeployment } from "./plan.ts";
import {
  readServiceRecord,
  recordConflicts,
  type ServiceDeploymentRecord,
  serviceRecordPath,
  settingsJson,
  writeServiceRecord,
} from "./record.ts";
import {
  DETERMINISTIC_DEPLOYER,
  SERVICE_CONTRACTS,
  type ServiceSet,
  type ServiceSetInputs,
  type ServiceSettings,
  serviceSet,
} from "./service-set.ts";
import { standardJsonInput, verificationInput } from "./verify-input.ts";

export type DeployServiceContractsParameters = {
  client: PublicClient;
  /** Signs with the deployer key; never logged. */
  wallet: WalletClient<Transport, Chain, Account>;
  inputs: Omit<ServiceSetInputs, "deployer">;
  settings: ServiceSettings;
  /** Stop unless the RPC's chain id is this one (56: BSC). */
  expectedChainId: number;
  /** Where the record and the verification inputs go; none: no files (the devnet's record holds the addresses). */
  outDir?: string;
  /** Plan, price and check, send nothing. */
  dryRun?: boolean;
  /** How long to wait for the key's transactions already in the mempool before planning. */
  pendingTimeoutMs?: number;
  log?: (line: string) => void;
};

export type DeployServiceContractsReturnType = {
  chainId: number;
  deployer: Address;
  set: ServiceSet;
  plan: DeployPlan;
  /** Gas of the plan and its price in wei at the node's current gas price. */
  gas: bigint;
  gasPrice: bigint;
  costWei: bigint;
  balanceWei: bigint;
  /** Transactions sent by this run (none on a dry run or when the chain already matches). */
  sent: { label: string; hash: Hex; block: number; gasUsed: bigint }[];
  record?: ServiceDeploymentRecord;
  /** The configuration lines an operator pastes. */
  env: string[];
};

export type DeployServiceContractsErrorType = DeployRefusedError | DeployFailedError;

/** The deployment cannot go: nothing was sent. `message` is the one line an operator reads. */
export class DeployRefusedError extends Error {
  override name = "DeployRefusedError";
}

/** A sent step failed on chain; what went before it stays, and the next run resumes. */
export class DeployFailedError extends Error {
  override name = "DeployFailedError";
}

/**
 * Brings the service's own contracts on a chain to `settings`: deploys what is missing at its
 * CREATE2 address, sets the tiers, the platform and the registrar, then hands ownership over.
 * Idempotent: a second run reads the chain, finds nothing to do and sends nothing; a run killed
 * halfway is resumed by the next (it waits for the key's pending transactions first). Every
 * check (chain id, proxy, record, ownership, funds) happens before the first transaction.
 *
 * @example
 * const result = await deployServiceContracts({ client, wallet, inputs, settings, expectedChainId: 56, outDir: "deployments/56" });
 * console.log(result.env.join("\n"));
 */
export async function deployServiceContracts(
  p: DeployServiceContractsParameters,
): Promise<DeployServiceContractsReturnType> {
  const log = p.log ?? (() => {});
  const { client } = p;
  const deployer = p.wallet.account.address;

  const chainId = await client.getChainId();
  if (chainId !== p.expectedChainId) {
    throw new DeployRefusedError(
      `the RPC is chain ${chainId}, not ${p.expectedChainId}: wrong BSC_RPC_URL (or pass --chain-id)`,
    );
  }
  const proxy = await client.getCode({ address: DETERMINISTIC_DEPLOYER });
  if (!proxy || proxy === "0x") {
    throw new DeployRefusedError(
      `chain ${chainId} has no deterministic deployment proxy at ${DETERMINISTIC_DEPLOYER}`,
    );
  }
  await waitForPending(client, deployer, p.pendingTimeoutMs ?? 300_000, log);

  const build = await loadBuild();
  const set = serviceSet(build.contracts, { ...p.inputs, deployer });
  const plan = await planDeployment({
    client,
    set,
    settings: p.settings,
    deployer,
    salt: p.inputs.salt,
  });

  const previous = p.outDir ? readServiceRecord(p.outDir) : undefined;
  if (previous && p.outDir) {
    const [conflict] = recordConflicts(previous, {
      chainId,
      deployer,
      set,
      deployed: plan.state.deployed,
      path: serviceRecordPath(p.outDir),
    });
    if (conflict) throw new DeployRefusedError(conflict);
  }
  if (plan.ownerCalls.length > 0) {
    const first = plan.ownerCalls[0] as DeployPlan["ownerCalls"][number];
    throw new DeployRefusedError(
      `${plan.ownerCalls.length} setting(s) differ on contracts this key ${deployer} does not own (first: ${first.label} on ${first.to}): the owner must send them (--json lists the calldata)`,
    );
  }

  const gas = plan.steps.reduce((sum, s) => sum + s.gas, 0n);
  const [gasPrice, balanceWei] = await Promise.all([
    client.getGasPrice(),
    client.getBalance({ address: deployer }),
  ]);
  const costWei = gas * gasPrice;
  const result: DeployServiceContractsReturnType = {
    chainId,
    deployer,
    set,
    plan,
    gas,
    gasPrice,
    costWei,
    balanceWei,
    sent: [],
    env: envLines(set, previous?.startBlock),
  };
  if (plan.steps.length > 0 && balanceWei < costWei) {
    throw new DeployRefusedError(
      `the deployer ${deployer} holds ${formatBnb(balanceWei)} BNB, the plan needs ${formatBnb(costWei)} BNB (${gas} gas at ${gasPrice} wei)`,
    );
  }
  if (p.dryRun) return result;

  let record: ServiceDeploymentRecord = previous ?? {
    chainId,
    deployer,
    salt: p.inputs.salt,
    contracts: Object.fromEntries(
      SERVICE_CONTRACTS.map((k) => [k, { address: set[k].address }]),
    ) as ServiceDeploymentRecord["contracts"],
    settings: settingsJson(p.settings),
    complete: false,
    updatedAt: new Date().toISOString(),
  };
  record = { ...record, settings: settingsJson(p.settings) };
  // The intent goes to disk before the first transaction: a run killed now leaves the addresses.
  if (p.outDir && plan.steps.length > 0) {
    writeServiceRecord(p.outDir, {
      ...record,
      complete: false,
      updatedAt: new Date().toISOString(),
    });
  }

  result.sent = await sendSteps(p.wallet, client, plan.steps, log);
  for (const [i, step] of plan.steps.entries()) {
    const sent = result.sent[i];
    if (step.creates && sent) {
      record.contracts[step.creates] = {
        address: set[step.creates].address,
        block: sent.block,
        transaction: sent.hash,
      };
    }
  }
  // A run killed after its deployments mined left no block in the record: find it on chain.
  for (const key of SERVICE_CONTRACTS) {
    const entry = record.contracts[key];
    if (entry.block === undefined && plan.state.deployed[key]) {
      const block = await findCreationBlock(client, entry.address);
      if (block !== undefined) record.contracts[key] = { ...entry, block };
    }
  }
  const blocks = SERVICE_CONTRACTS.map((k) => record.contracts[k].block).filter(
    (b): b is number => b !== undefined,
  );
  record = {
    ...record,
    startBlock:
      blocks.length === SERVICE_CONTRACTS.length ? Math.min(...blocks) : record.startBlock,
    complete: true,
    updatedAt: new Date().toISOString(),
  };
  result.record = record;
  result.env = envLines(set, record.startBlock);
  if (p.outDir) {
    writeServiceRecord(p.outDir, record);
    writeVerificationInputs(p.outDir, set, build.solcLongVersion);
  }
  return result;
}

/** Waits until the key has no transaction in the mempool, so a plan never races one. */
async function waitForPending(
  client: PublicClient,
  address: Address,
  timeoutMs: number,
  log: (line: string) => void,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [latest, pending] = await Promise.all([
      client.getTransactionCount({ address, blockTag: "latest" }),
      client.getTransactionCount({ address, blockTag: "pending" }),
    ]);
    if (pending <= latest) return;
    if (Date.now() > deadline) {
      throw new DeployRefusedError(
        `${pending - latest} transaction(s) of ${address} stayed pending for ${timeoutMs / 1000} s: let them mine or replace them first`,
      );
    }
    log(`waiting for ${pending - latest} pending transaction(s) of the deployer to be mined`);
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

/**
 * Sends the steps with consecutive nonces, in order, then waits for every receipt. The order of
 * one sender's nonces is the order they execute in, so a call to a contract created by an
 * earlier step of the same batch finds it.
 */
async function sendSteps(
  wallet: WalletClient<Transport, Chain, Account>,
  client: PublicClient,
  steps: DeployStep[],
  log: (line: string) => void,
): Promise<DeployServiceContractsReturnType["sent"]> {
  if (steps.length === 0) return [];
  const nonce = await client.getTransactionCount({
    address: wallet.account.address,
    blockTag: "latest",
  });
  const hashes: Hex[] = [];
  for (const [i, step] of steps.entries()) {
    hashes.push(
      await wallet.sendTransaction({
        to: step.to,
        data: step.data,
        gas: step.gas,
        nonce: nonce + i,
      }),
    );
    log(`sent ${step.label}: ${hashes[i]}`);
  }
  const receipts = await Promise.all(
    hashes.map((hash) =>
      client.waitForTransactionReceipt({ hash, pollingInterval: 500, timeout: 300_000 }),
    ),
  );
  receipts.forEach((r, i) => {
    if (r.status !== "success") {
      throw new DeployFailedError(
        `${steps[i]?.label} reverted in ${r.transactionHash}: what went before it stays, run the deploy again to resume`,
      );
    }
  });
  return receipts.map((r, i) => ({
    label: steps[i]?.label ?? "",
    hash: r.transactionHash,
    block: Number(r.blockNumber),
    gasUsed: r.gasUsed,
  }));
}

/**
 * The first block with code at `address`, by bisection over `eth_getCode` at past blocks; undefined
 * when the node keeps no state that old (a pruned node): the operator then sets BSC_START_BLOCK.
 */
async function findCreationBlock(
  client: PublicClient,
  address: Address,
): Promise<number | undefined> {
  try {
    let lo = 0n;
    let hi = await client.getBlockNumber();
    while (lo < hi) {
      const mid = (lo + hi) / 2n;
      const code = await client.getCode({ address, blockNumber: mid });
      if (code && code !== "0x") hi = mid;
      else lo = mid + 1n;
    }
    return Number(lo);
  } catch {
    return undefined;
  }
}

function writeVerificationInputs(outDir: string, set: ServiceSet, solcLongVersion: string): void {
  const dir = join(outDir, "verify");
  mkdirSync(dir, { recursive: true });
  const input = standardJsonInput();
  for (const key of SERVICE_CONTRACTS) {
    const v = verificationInput(set[key], solcLongVersion, input);
    writeFileSync(join(dir, `${set[key].name}.json`), `${JSON.stringify(v, null, 2)}\n`);
  }
}

function envLines(set: ServiceSet, startBlock: number | undefined): string[] {
  const lines = [
    `SERVICE_REGISTRY_ADDRESS=${set.serviceRegistry.address}`,
    `LAUNCH_FACTORY_ADDRESS=${set.launchFactory.address}`,
  ];
  if (startBlock !== undefined) lines.push(`BSC_START_BLOCK=${startBlock}`);
  return lines;
}

/** Wei as BNB with up to 6 decimals. */
export function formatBnb(wei: bigint): string {
  const whole = wei / 10n ** 18n;
  const frac = (wei % 10n ** 18n).toString().padStart(18, "0").slice(0, 6).replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : `${whole}`;
}
