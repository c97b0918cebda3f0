import {
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  keccak256,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { viemChain } from "../../lib/chain.ts";
import { type DevnetAccounts, devnetAccounts } from "../accounts.ts";
import { minedReceipt } from "../mined-receipt.ts";
import type { DeploymentRecord } from "../record.ts";

/** One transaction of the storyline: encoded once, sent by a wallet or signed into a batch. */
export type StoryCall = { to: Address; data: Hex; value?: bigint; gas: bigint };

/** A random source: `random(n)` is in [0, n). */
export type Random = (n: bigint) => bigint;

export type StoryWorld = {
  record: DeploymentRecord;
  chain: Chain;
  client: PublicClient;
  test: ReturnType<typeof createTestClient>;
  roles: DevnetAccounts;
  random: Random;
  /** The storyline's wallet for `label`: the same seed and label give the same key. */
  account: (label: string) => LocalAccount;
  /** Sends `call` from `from` (nonces kept per account, so parallel senders never collide). */
  send: (from: LocalAccount, call: StoryCall) => Promise<TransactionReceipt>;
  balanceOf: (token: Address, who: Address) => Promise<bigint>;
};

export type StoryWorldParameters = {
  rpcUrl: string;
  record: DeploymentRecord;
  /** Seeds the PRNG and the wallets' keys: the same seed gives the same transactions. */
  seed: number;
  /** Receipt polling (ms). */
  pollingInterval?: number;
};

/** Deterministic 64-bit LCG; `next(n)` is uniform enough in [0, n). */
export function prng(seed: number): Random {
  let s = BigInt(seed) + 0x9e3779b97f4a7c15n;
  return (n: bigint) => {
    s = (s * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
    return (s >> 16n) % n;
  };
}

/**
 * The clients, accounts and sender every storyline step runs on.
 *
 * @example
 * const world = storyWorld({ rpcUrl, record, seed: 7 });
 * await world.send(world.account("trader0"), buyCall(record, token, parseEther("0.1")));
 */
export function storyWorld(p: StoryWorldParameters): StoryWorld {
  const chain = viemChain({ id: p.record.chainId, name: "devnet", rpcUrls: [p.rpcUrl] });
  // The devnet restarts anvil from its state file now and then (devnet/anvil.ts: an RPC outage
  // of 1-2 s, longer on a loaded machine): every call rides it out as the indexer does, with
  // retries over ~16 s (250 ms doubling) rather than viem's ~1 s.
  const transport = http(p.rpcUrl, { retryCount: 6, retryDelay: 250 });
  const pollingInterval = p.pollingInterval ?? 50;
  const client = createPublicClient({ chain, transport, pollingInterval }) as PublicClient;
  const test = createTestClient({ chain, mode: "anvil", transport });
  const nonces = new Map<Address, Promise<number>>();
  // Each account's nonces are handed out in order before anything is sent: concurrent sends
  // from one account (the relayer registering tokens) get consecutive nonces.
  const nextNonce = (from: Address) => {
    const previous =
      nonces.get(from) ??
      client.getTransactionCount({ address: from, blockTag: "pending" }).then((n) => n - 1);
    const next = previous.then((n) => n + 1);
    nonces.set(from, next);
    return next;
  };
  return {
    record: p.record,
    chain,
    client,
    test,
    roles: devnetAccounts(),
    random: prng(p.seed),
    account: (label) => privateKeyToAccount(keccak256(toHex(`storyline:${p.seed}:${label}`))),
    send: async (from, call) => {
      const wallet = createWalletClient({ account: from, chain, transport });
      const hash = await wallet.sendTransaction({ ...call, nonce: await nextNonce(from.address) });
      const receipt = await minedReceipt({ client, test, hash, pollingInterval });
      if (receipt.status !== "success") throw new Error(`storyline transaction ${hash} reverted`);
      return receipt;
    },
    balanceOf: (token, who) =>
      client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [who],
      }),
  };
}

/** Runs `step` over `items` all at once or one after another. */
export async function eachOf<T, R>(
  items: readonly T[],
  parallel: boolean,
  step: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (parallel) return Promise.all(items.map(step));
  const out: R[] = [];
  for (const [i, item] of items.entries()) out.push(await step(item, i));
  return out;
}
