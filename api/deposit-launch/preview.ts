import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  InsufficientFundsError,
  isAddress,
  type PublicClient,
  zeroAddress,
} from "viem";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { launchVaultAbi } from "../../abis/LaunchVault.ts";
import { HttpError } from "../errors.ts";
import type { PREVIEW_ACTIONS } from "./schema.ts";

const TOTAL_SUPPLY = 10n ** 27n;
/** LaunchVault.EXECUTE_WINDOW: a closed vault not executed within it can be refunded. */
const EXECUTE_WINDOW = 86_400n;

export type PreviewParameters = {
  client: PublicClient;
  factory: Address;
  /** A launch id (digits) or a vault address. */
  id: string;
  deposits: { account: Address; amountWei: string }[];
  action: (typeof PREVIEW_ACTIONS)[number];
};

type Call = {
  call: string;
  from: Address;
  value: bigint;
  functionName: "deposit" | "close" | "executeLaunch" | "claim" | "enableRefund" | "refund";
};

/**
 * A dry run of a deposit bundle and what follows it, with `eth_simulateV1` against the
 * current chain: the deposits in one block, then (for close, execute, claim, refund) the
 * vault's next calls in a block at the close time. Each step's gas and outcome, and the
 * tokens each depositor of the bundle would receive at launch. Nothing is signed or sent.
 *
 * @example
 * const preview = await previewLaunch({ client, factory, id: "1", deposits, action: "execute" });
 */
export async function previewLaunch(p: PreviewParameters) {
  const { client } = p;
  // Reads that fail here are the chain's outage (503); what the bundle asks is judged below.
  const block = await chainRead(() => client.getBlock({ blockTag: "latest" }));
  const at = { blockNumber: block.number } as const;
  const vault = await findVault(p, block.number);
  const v = { address: vault, abi: launchVaultAbi, ...at } as const;
  const unique = [...new Set(p.deposits.map((x) => x.account))];
  const [totalDeposited, closeTimestamp, tier, existing, balances] = await chainRead(() =>
    Promise.all([
      client.readContract({ ...v, functionName: "totalDeposited" }),
      client.readContract({ ...v, functionName: "closeTimestamp" }),
      client.readContract({ ...v, functionName: "tier" }),
      Promise.all(
        unique.map(
          async (a) =>
            [a, await client.readContract({ ...v, functionName: "deposits", args: [a] })] as const,
        ),
      ),
      Promise.all(
        unique.map(async (a) => [a, await client.getBalance({ address: a, ...at })] as const),
      ),
    ]),
  );
  const first = (p.deposits[0] as { account: Address }).account;
  const accounts = existing.map(([a]) => a);
  const deposits: Call[] = p.deposits.map((x) => ({
    call: "deposit",
    from: x.account,
    value: BigInt(x.amountWei),
    functionName: "deposit",
  }));
  // A deposit its account cannot pay (after its earlier ones in the bundle) is the caller's
  // problem, reported as its step's error like a vault revert; eth_simulateV1 would refuse the
  // whole bundle for it instead.
  const left = new Map(balances);
  const payable = deposits.map((d) => {
    const have = left.get(d.from) ?? 0n;
    if (d.value > have) return false;
    left.set(d.from, have - d.value);
    return true;
  });
  const later: Call[] = [];
  const step = (functionName: Call["functionName"], from: Address = first) =>
    later.push({ call: functionName, from, value: 0n, functionName });
  if (p.action !== "deposit" && p.action !== "refund") step("close");
  if (p.action === "execute" || p.action === "claim") step("executeLaunch");
  if (p.action === "claim") for (const a of accounts) step("claim", a);
  if (p.action === "refund") {
    step("enableRefund");
    for (const a of accounts) step("refund", a);
  }
  const bundleTotal = deposits.reduce((s, d, i) => s + (payable[i] ? d.value : 0n), 0n);
  // Refund needs the raise below the minimum, or the execute window gone by.
  const refundLate = p.action === "refund" && totalDeposited + bundleTotal >= tier.minRaise;
  const laterTime = BigInt(closeTimestamp) + (refundLate ? EXECUTE_WINDOW : 0n) + 1n;
  const toCall = (c: Call) => ({
    account: c.from,
    to: vault,
    abi: launchVaultAbi,
    functionName: c.functionName,
    value: c.value,
  });
  const simulated = deposits.filter((_, i) => payable[i]);
  let blocks: Awaited<ReturnType<typeof client.simulateBlocks>>;
  try {
    blocks = await client.simulateBlocks({
      ...at,
      blocks: [
        { calls: simulated.map(toCall) as never },
        ...(later.length
          ? [
              {
                blockOverrides: {
                  time: laterTime > block.timestamp ? laterTime : block.timestamp + 1n,
                },
                calls: later.map(toCall) as never,
              },
            ]
          : []),
      ],
    });
  } catch (error) {
    // Balances were checked above; a refusal for funds left is still the bundle's, not an outage.
    if (error instanceof BaseError && error.walk((x) => x instanceof InsufficientFundsError)) {
      throw new HttpError("validation_failed", {
        message: `an account of the bundle cannot pay its calls: ${error.shortMessage}`,
        details: [{ path: "deposits", message: "an account's balance is below what it sends" }],
        cause: error,
      });
    }
    throw new HttpError("unavailable", {
      message: `the chain could not simulate the bundle: ${error instanceof BaseError ? error.shortMessage : "RPC error"}`,
      headers: { "Retry-After": String(CHAIN_RETRY_AFTER_SECONDS) },
      cause: error,
    });
  }
  const ran = blocks.flatMap((b) => b.calls);
  // Each call's result, with `undefined` for a deposit its account cannot pay (not simulated).
  let next = 0;
  const results = [
    ...deposits.map((_, i) => (payable[i] ? ran[next++] : undefined)),
    ...ran.slice(next),
  ];
  const all = [...deposits, ...later];
  const steps = all.map((c, i) => {
    const r = results[i];
    const ok = r?.status === "success";
    return {
      call: c.call,
      from: c.from.toLowerCase(),
      valueWei: c.value.toString(),
      ok,
      gas: (r?.gasUsed ?? 0n).toString(),
      error: ok ? null : i < deposits.length && !payable[i] ? INSUFFICIENT : errorText(r?.error),
    };
  });
  // Only deposits that would succeed count towards the prediction.
  const added = new Map<string, bigint>();
  deposits.forEach((d, i) => {
    if (steps[i]?.ok) added.set(d.from, (added.get(d.from) ?? 0n) + d.value);
  });
  const total = totalDeposited + [...added.values()].reduce((s, x) => s + x, 0n);
  const forDepositors = TOTAL_SUPPLY - (TOTAL_SUPPLY * BigInt(tier.liquidityBps)) / 10_000n;
  return {
    action: p.action,
    blockNumber: block.number.toString(),
    ok: steps.every((s) => s.ok),
    steps,
    totalGas: steps.reduce((s, x) => s + BigInt(x.gas), 0n).toString(),
    totalDepositedWei: total.toString(),
    tokens: existing.map(([a, before]) => {
      const principal = before + (added.get(a) ?? 0n);
      return {
        account: a.toLowerCase(),
        principalWei: principal.toString(),
        tokens: total === 0n ? "0" : ((forDepositors * principal) / total).toString(),
      };
    }),
  };
}

async function findVault(p: PreviewParameters, blockNumber: bigint): Promise<Address> {
  if (isAddress(p.id)) {
    const factory = await p.client
      .readContract({ address: p.id, abi: launchVaultAbi, functionName: "factory", blockNumber })
      .catch(() => undefined);
    if (factory?.toLowerCase() !== p.factory.toLowerCase())
      throw new HttpError("not_found", { message: `${p.id} is not a vault of our factory` });
    return p.id;
  }
  let vault: Address;
  try {
    vault = await p.client.readContract({
      address: p.factory,
      abi: launchFactoryAbi,
      functionName: "vaults",
      args: [BigInt(p.id)],
      blockNumber,
    });
  } catch (error) {
    // Past the end of the factory's list the getter reverts: that launch does not exist.
    if (error instanceof BaseError && error.walk((x) => x instanceof ContractFunctionRevertedError))
      throw new HttpError("not_found", { message: `no launch ${p.id} on the factory` });
    throw new HttpError("unavailable", {
      message: "the chain could not be read; retry shortly",
      headers: { "Retry-After": String(CHAIN_RETRY_AFTER_SECONDS) },
      cause: error,
    });
  }
  if (vault === zeroAddress)
    throw new HttpError("not_found", { message: `no launch ${p.id} on the factory` });
  return vault;
}

/** `Retry-After` (seconds) when the RPC fails while a preview reads the vault. */
const CHAIN_RETRY_AFTER_SECONDS = 2;

/** The step error of a deposit larger than what its account holds (named like the vault's). */
const INSUFFICIENT = "InsufficientBalance";

/** A read of the chain; its failure is an outage of the chain, 503 with Retry-After. */
async function chainRead<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError("unavailable", {
      message: "the chain could not be read; retry shortly",
      headers: { "Retry-After": String(CHAIN_RETRY_AFTER_SECONDS) },
      cause: error,
    });
  }
}

function errorText(e: unknown): string {
  if (!e) return "failed";
  if (e instanceof BaseError) {
    const revert = e.walk((x) => x instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError)
      return revert.data?.errorName ?? revert.reason ?? revert.shortMessage;
    return e.shortMessage;
  }
  return (e as Error).message ?? "failed";
}
