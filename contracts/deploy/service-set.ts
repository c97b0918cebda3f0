import {
  type Abi,
  type Address,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  keccak256,
  parseEther,
  toHex,
} from "viem";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { serviceRegistryAbi } from "../../abis/ServiceRegistry.ts";
import type { Artifacts } from "../compile.ts";

/**
 * The deterministic deployment proxy (Arachnid's): `salt ++ initCode` in, CREATE2 from its own
 * address. Present on BSC and in anvil's genesis, so an address is the same wherever it runs.
 */
export const DETERMINISTIC_DEPLOYER = "0x4e59b44847b379578588920ca78fbf26c0b4956c" as const;

/** The salt of the first deployment; another salt gives a new set of addresses. */
export const DEFAULT_SALT: Hex = keccak256(toHex("launchpad service contracts v1"));

export const SERVICE_CONTRACTS = ["tokenDeployer", "launchFactory", "serviceRegistry"] as const;
export type ServiceContractKey = (typeof SERVICE_CONTRACTS)[number];

/** Solidity contract name of each key (its artifact and its verification entry). */
export const CONTRACT_NAME: Record<ServiceContractKey, string> = {
  tokenDeployer: "TokenDeployer",
  launchFactory: "LaunchFactory",
  serviceRegistry: "ServiceRegistry",
};

/**
 * What the addresses are made of: nothing an operator may change later. Settings (tiers, the
 * platform, the registrar, the owner) are calls after the deployment, so changing one never
 * moves a contract.
 */
export type ServiceSetInputs = {
  /** The deployer key's address: the contracts' first owner. */
  deployer: Address;
  salt: Hex;
  /** PancakeSwap V2 router (its factory and WBNB are read from it). */
  router: Address;
  pairInitCodeHash: Hex;
  safeProxyFactory: Address;
  safeSingleton: Address;
  safeFallbackHandler: Address;
};

export type PlannedContract = {
  key: ServiceContractKey;
  name: string;
  address: Address;
  /** Creation code with the ABI-encoded constructor arguments appended. */
  initCode: Hex;
  /** The constructor arguments alone, as a block explorer's verification takes them. */
  constructorArgs: Hex;
};

export type ServiceSet = Record<ServiceContractKey, PlannedContract>;

/** The inputs of a generated ABI's constructor: the argument layout is the contract's, not restated. */
const constructorInputs = <const A extends Abi>(abi: A) =>
  (abi.find((item) => item.type === "constructor") as Extract<A[number], { type: "constructor" }>)
    .inputs;

/**
 * The three service contracts and their CREATE2 addresses through the deterministic proxy.
 *
 * @example
 * const set = serviceSet(await loadArtifacts(), { deployer, salt: DEFAULT_SALT, ...bscAddresses });
 * console.log(set.serviceRegistry.address); // the same on every run with these inputs
 */
export function serviceSet(artifacts: Artifacts, inputs: ServiceSetInputs): ServiceSet {
  const plan = (key: ServiceContractKey, constructorArgs: Hex): PlannedContract => {
    const name = CONTRACT_NAME[key];
    const artifact = artifacts[name];
    if (!artifact) throw new Error(`contract ${name} missing from the compiled artifacts`);
    const initCode = `${artifact.bytecode}${constructorArgs.slice(2)}` as Hex;
    const address = getContractAddress({
      opcode: "CREATE2",
      from: DETERMINISTIC_DEPLOYER,
      salt: inputs.salt,
      bytecode: initCode,
    }).toLowerCase() as Address;
    return { key, name, address, initCode, constructorArgs };
  };
  const tokenDeployer = plan("tokenDeployer", "0x");
  const launchFactory = plan(
    "launchFactory",
    encodeAbiParameters(constructorInputs(launchFactoryAbi), [
      {
        owner: inputs.deployer,
        router: inputs.router,
        pairInitCodeHash: inputs.pairInitCodeHash,
        tokenDeployer: tokenDeployer.address,
        safeProxyFactory: inputs.safeProxyFactory,
        safeSingleton: inputs.safeSingleton,
        safeFallbackHandler: inputs.safeFallbackHandler,
      },
    ]),
  );
  const serviceRegistry = plan(
    "serviceRegistry",
    encodeAbiParameters(constructorInputs(serviceRegistryAbi), [inputs.deployer]),
  );
  return { tokenDeployer, launchFactory, serviceRegistry };
}

/** One deposit-launch tier as `LaunchFactory.setTier` takes it. */
export type TierSetting = {
  id: number;
  name: string;
  minRaise: bigint;
  maxRaise: bigint;
  minDeposit: bigint;
  maxPerWallet: bigint;
  liquidityBps: number;
};

/** A tier as a record file keeps it: amounts as wei strings. */
export type TierJson = {
  id: number;
  name: string;
  minRaise: string;
  maxRaise: string;
  minDeposit: string;
  maxPerWallet: string;
  liquidityBps: number;
};

export function tierJson(t: TierSetting): TierJson {
  return {
    id: t.id,
    name: t.name,
    minRaise: t.minRaise.toString(),
    maxRaise: t.maxRaise.toString(),
    minDeposit: t.minDeposit.toString(),
    maxPerWallet: t.maxPerWallet.toString(),
    liquidityBps: t.liquidityBps,
  };
}

/** What the deployment sets after the contracts exist; a later run brings the chain back to it. */
export type ServiceSettings = {
  /** Who owns both contracts at the end (a Safe): the hand-over is the last step. */
  owner: Address;
  /** The launch saga's relayer: the ServiceRegistry's registrar. */
  relayer: Address;
  /** Receives the platform share of token taxes. */
  platform: Address;
  /** Share of each token tax paid to a launch's treasury, in basis points (the rest: platform). */
  treasuryShareBps: number;
  tiers: TierSetting[];
};

/** The deposit-launch tiers of a new deployment (docs/deploy.md); the devnet uses them too. */
export const DEFAULT_TIERS: TierSetting[] = [
  {
    id: 0,
    name: "small",
    minRaise: parseEther("1"),
    maxRaise: parseEther("20"),
    minDeposit: parseEther("0.01"),
    maxPerWallet: parseEther("5"),
    liquidityBps: 5000,
  },
  {
    id: 1,
    name: "medium",
    minRaise: parseEther("10"),
    maxRaise: parseEther("100"),
    minDeposit: parseEther("0.1"),
    maxPerWallet: parseEther("20"),
    liquidityBps: 5000,
  },
  {
    id: 2,
    name: "large",
    minRaise: parseEther("50"),
    maxRaise: parseEther("500"),
    minDeposit: parseEther("0.5"),
    maxPerWallet: parseEther("50"),
    liquidityBps: 5000,
  },
];

export const DEFAULT_TREASURY_SHARE_BPS = 5000;
