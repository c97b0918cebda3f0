import {
  type Address,
  concat,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  type PublicClient,
  zeroAddress,
} from "viem";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { serviceRegistryAbi } from "../../abis/ServiceRegistry.ts";
import {
  DETERMINISTIC_DEPLOYER,
  SERVICE_CONTRACTS,
  type ServiceContractKey,
  type ServiceSet,
  type ServiceSettings,
} from "./service-set.ts";

/** One transaction of a deployment. */
export type DeployStep = {
  label: string;
  to: Address;
  data: Hex;
  /** Gas limit: the node's estimate (+20 %), or a budget when the target is not deployed yet. */
  gas: bigint;
  /** False: a budget (the call targets a contract this very plan creates). */
  estimated: boolean;
  /** The contract this step creates, if it is a deployment. */
  creates?: ServiceContractKey;
};

/** What the chain holds for the set now (a contract not deployed yet: its constructor's state). */
export type ServiceState = {
  deployed: Record<ServiceContractKey, boolean>;
  factory: {
    owner: Address;
    platform: Address;
    treasuryShareBps: number;
    tiers: Map<number, TierState>;
  };
  registry: { owner: Address; registrar: Address };
};

type TierState = {
  minRaise: bigint;
  maxRaise: bigint;
  minDeposit: bigint;
  maxPerWallet: bigint;
  liquidityBps: number;
  enabled: boolean;
};

export type DeployPlan = {
  state: ServiceState;
  steps: DeployStep[];
  /**
   * Settings the deployer key can no longer send (ownership already handed over): each is a
   * call the owner (the Safe) must make, with its calldata.
   */
  ownerCalls: { label: string; to: Address; data: Hex }[];
};

/** Gas budgets of the calls on a contract this plan deploys (measured on anvil, about 2x). */
const BUDGET = {
  setTier: 200_000n,
  setPlatform: 100_000n,
  setRegistrar: 100_000n,
  transferOwnership: 80_000n,
};

/**
 * Reads the set's state from the chain.
 *
 * @example
 * const state = await readServiceState(client, set, deployer);
 * if (state.deployed.serviceRegistry) console.log(state.registry.registrar);
 */
export async function readServiceState(
  client: PublicClient,
  set: ServiceSet,
  deployer: Address,
  tierIds: number[],
): Promise<ServiceState> {
  const codes = await Promise.all(
    SERVICE_CONTRACTS.map((k) => client.getCode({ address: set[k].address })),
  );
  const deployed = Object.fromEntries(
    SERVICE_CONTRACTS.map((k, i) => [k, codes[i] !== undefined && codes[i] !== "0x"]),
  ) as Record<ServiceContractKey, boolean>;

  const factory: ServiceState["factory"] = {
    owner: deployer,
    platform: deployer,
    treasuryShareBps: 0,
    tiers: new Map(),
  };
  if (deployed.launchFactory) {
    const at = { address: set.launchFactory.address, abi: launchFactoryAbi } as const;
    const [owner, platform, share, ...tiers] = await Promise.all([
      client.readContract({ ...at, functionName: "owner" }),
      client.readContract({ ...at, functionName: "platform" }),
      client.readContract({ ...at, functionName: "treasuryShareBps" }),
      ...tierIds.map((id) => client.readContract({ ...at, functionName: "tiers", args: [id] })),
    ]);
    factory.owner = owner as Address;
    factory.platform = platform as Address;
    factory.treasuryShareBps = Number(share);
    for (const [i, id] of tierIds.entries()) factory.tiers.set(id, tiers[i] as TierState);
  }
  const registry: ServiceState["registry"] = { owner: deployer, registrar: zeroAddress };
  if (deployed.serviceRegistry) {
    const at = { address: set.serviceRegistry.address, abi: serviceRegistryAbi } as const;
    const [owner, registrar] = await Promise.all([
      client.readContract({ ...at, functionName: "owner" }),
      client.readContract({ ...at, functionName: "registrar" }),
    ]);
    registry.owner = owner;
    registry.registrar = registrar;
  }
  return { deployed, factory, registry };
}

export type PlanDeploymentParameters = {
  client: PublicClient;
  set: ServiceSet;
  settings: ServiceSettings;
  /** The key that sends: owner of whatever it deploys until the hand-over. */
  deployer: Address;
  salt: Hex;
};

/**
 * What must be sent to bring the chain to `settings`: the missing contracts, then each setting
 * that differs, then the hand-over of ownership. Nothing when the chain already matches. A
 * setting on a contract the key no longer owns goes to `ownerCalls` instead.
 *
 * @example
 * const plan = await planDeployment({ client, set, settings, deployer: account.address, salt });
 * for (const s of plan.steps) console.log(s.label, s.gas);
 */
export async function planDeployment(p: PlanDeploymentParameters): Promise<DeployPlan> {
  const { set, settings } = p;
  const state = await readServiceState(
    p.client,
    set,
    p.deployer,
    settings.tiers.map((t) => t.id),
  );
  const steps: DeployStep[] = [];
  const ownerCalls: DeployPlan["ownerCalls"] = [];

  for (const key of SERVICE_CONTRACTS) {
    if (state.deployed[key]) continue;
    const data = concat([p.salt, set[key].initCode]);
    const gas = await p.client.estimateGas({
      account: p.deployer,
      to: DETERMINISTIC_DEPLOYER,
      data,
    });
    steps.push({
      label: `deploy ${set[key].name}`,
      to: DETERMINISTIC_DEPLOYER,
      data,
      gas: (gas * 12n) / 10n,
      estimated: true,
      creates: key,
    });
  }

  // Settings: sent by the key while it owns the contract, else left to the owner.
  const settle = async (
    key: "launchFactory" | "serviceRegistry",
    owner: Address,
    label: string,
    data: Hex,
    budget: bigint,
  ) => {
    const to = set[key].address;
    if (!isAddressEqual(owner, p.deployer)) {
      ownerCalls.push({ label, to, data });
      return;
    }
    if (!state.deployed[key]) {
      steps.push({ label, to, data, gas: budget, estimated: false });
      return;
    }
    const gas = await p.client.estimateGas({ account: p.deployer, to, data });
    steps.push({ label, to, data, gas: (gas * 12n) / 10n, estimated: true });
  };

  const f = state.factory;
  for (const t of settings.tiers) {
    const now = f.tiers.get(t.id);
    const same =
      now?.enabled === true &&
      now.minRaise === t.minRaise &&
      now.maxRaise === t.maxRaise &&
      now.minDeposit === t.minDeposit &&
      now.maxPerWallet === t.maxPerWallet &&
      now.liquidityBps === t.liquidityBps;
    if (same) continue;
    const data = encodeFunctionData({
      abi: launchFactoryAbi,
      functionName: "setTier",
      args: [
        t.id,
        {
          minRaise: t.minRaise,
          maxRaise: t.maxRaise,
          minDeposit: t.minDeposit,
          maxPerWallet: t.maxPerWallet,
          liquidityBps: t.liquidityBps,
          enabled: true,
        },
      ],
    });
    await settle("launchFactory", f.owner, `setTier(${t.name})`, data, BUDGET.setTier);
  }
  if (
    !isAddressEqual(f.platform, settings.platform) ||
    f.treasuryShareBps !== settings.treasuryShareBps
  ) {
    const data = encodeFunctionData({
      abi: launchFactoryAbi,
      functionName: "setPlatform",
      args: [settings.platform, settings.treasuryShareBps],
    });
    await settle(
      "launchFactory",
      f.owner,
      `setPlatform(${settings.platform}, ${settings.treasuryShareBps} bps)`,
      data,
      BUDGET.setPlatform,
    );
  }
  const r = state.registry;
  if (!isAddressEqual(r.registrar, settings.relayer)) {
    const data = encodeFunctionData({
      abi: serviceRegistryAbi,
      functionName: "setRegistrar",
      args: [settings.relayer],
    });
    await settle(
      "serviceRegistry",
      r.owner,
      `setRegistrar(${settings.relayer})`,
      data,
      BUDGET.setRegistrar,
    );
  }
  // The hand-over comes last: after it, the key can change nothing.
  for (const [key, owner] of [
    ["launchFactory", f.owner],
    ["serviceRegistry", r.owner],
  ] as const) {
    if (isAddressEqual(owner, settings.owner)) continue;
    const data = encodeFunctionData({
      abi: launchFactoryAbi,
      functionName: "transferOwnership",
      args: [settings.owner],
    });
    await settle(
      key,
      owner,
      `transferOwnership(${set[key].name} -> ${settings.owner})`,
      data,
      BUDGET.transferOwnership,
    );
  }
  return { state, steps, ownerCalls };
}
