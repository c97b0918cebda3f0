import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  parseAbi,
  parseUnits,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, expect, it } from "vitest";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { readArbitrumRecord } from "../../devnet/arbitrum.ts";
import { ARBITRUM_SEED_USDC, seedArbitrum } from "../../devnet/arbitrum-seed.ts";
import { HYPERLIQUID_BRIDGE2 } from "../../lib/arbitrum.ts";
import { viemChain } from "../../lib/chain.ts";
import { isolatedEnv, runCli, type Stack, startStack, waitFor } from "../helpers/cli.ts";
import {
  bearer,
  createAgentCli,
  launch,
  launchBody,
  launchEnv,
  nextIp,
} from "../helpers/launch.ts";

// USDC on Arbitrum through the real stack (`launchpad start`: both anvils, Ponder multichain,
// the worker's projector, the API): a deposit address registered by the agent receives USDC
// and sends part of it to the perps bridge; the feed shows one `bridge.completed` and one
// `perps.deposit.sent`, and a restart of the whole stack (indexer, worker, both chains from
// their state files) neither duplicates nor loses them.

let stack: Stack | undefined;
let env: Record<string, string>;
let token: string;
const wallet = privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as `0x${string}`;

beforeAll(async () => {
  env = launchEnv(await isolatedEnv());
  stack = await startStack(env);
  const info = JSON.parse((await runCli(["devnet", "info", "--json"], env)).stdout);
  const a = await createAgentCli(env, "usdc-agent");
  const r = await launch(stack.apiUrl, launchBody(a, info.sampleImageUrl), bearer(a));
  expect(r.status).toBe(200);
  token = r.body.data.tokenAddress;
  const reg = await fetch(`${stack.apiUrl}/v2/agents/${token}/wallets`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${a.apiKey}`,
      "x-forwarded-for": nextIp(),
    },
    body: JSON.stringify({ chain: "arbitrum", address: wallet, role: "perps" }),
  });
  expect(reg.status).toBe(201);
}, 400_000);

afterAll(async () => {
  await stack?.cleanup();
});

type Item = {
  eventType: string;
  source: string;
  sourceEventId: string;
  data: Record<string, unknown>;
  text?: string;
};

async function arbitrumEvents(): Promise<Item[]> {
  const res = await fetch(`${stack?.apiUrl}/v2/agents/${token}/events?limit=100`, {
    headers: { "x-forwarded-for": nextIp() },
  });
  expect(res.status).toBe(200);
  const items = ((await res.json()) as { data: { items: Item[] } }).data.items;
  return items.filter((e) => e.source === "evm-indexer:arbitrum");
}

it("starts a second devnet chain (id 42161) with a 6-decimal USD Coin", async () => {
  const record = readArbitrumRecord(env.LAUNCHPAD_DATA_DIR as string);
  expect(record).toMatchObject({ chainId: 42161, bridge: HYPERLIQUID_BRIDGE2 });
  const client = createPublicClient({ transport: http(record?.rpcUrl) });
  expect(await client.getChainId()).toBe(42161);
  const abi = [
    {
      type: "function",
      name: "decimals",
      inputs: [],
      outputs: [{ type: "uint8" }],
      stateMutability: "view",
    },
    {
      type: "function",
      name: "symbol",
      inputs: [],
      outputs: [{ type: "string" }],
      stateMutability: "view",
    },
    {
      type: "function",
      name: "name",
      inputs: [],
      outputs: [{ type: "string" }],
      stateMutability: "view",
    },
  ] as const;
  const address = record?.usdc as `0x${string}`;
  expect(await client.readContract({ address, abi, functionName: "decimals" })).toBe(6);
  expect(await client.readContract({ address, abi, functionName: "symbol" })).toBe("USDC");
  expect(await client.readContract({ address, abi, functionName: "name" })).toBe("USD Coin");
});

it("a USDC transfer in and a deposit to the bridge are one event each, across a restart", async () => {
  // `devnet seed`'s step: it picks the newest agent's registered perps wallet by itself.
  expect(await seedArbitrum({ dataDir: env.LAUNCHPAD_DATA_DIR as string })).toBe(wallet);
  const both = (items: Item[]) =>
    items.some((e) => e.eventType === "bridge.completed") &&
    items.some((e) => e.eventType === "perps.deposit.sent")
      ? items
      : undefined;
  const first = await waitFor(
    "both Arbitrum events in the feed",
    async () => both(await arbitrumEvents()),
    120_000,
  );
  const expectOneEach = (items: Item[]) => {
    const completed = items.filter((e) => e.eventType === "bridge.completed");
    const sent = items.filter((e) => e.eventType === "perps.deposit.sent");
    expect(completed).toHaveLength(1);
    expect(sent).toHaveLength(1);
    expect(completed[0]?.data).toMatchObject({
      asset: "USDC",
      amount: ARBITRUM_SEED_USDC.minted,
      wallet,
      toChain: "arbitrum",
    });
    expect(sent[0]?.data).toMatchObject({
      asset: "USDC",
      amount: ARBITRUM_SEED_USDC.deposited,
      wallet,
      to: HYPERLIQUID_BRIDGE2,
    });
  };
  expectOneEach(first);

  // The whole stack stops and starts again on the same data: both chains from their state
  // files (same identity: no reset), the index resumed, the projector's positions kept.
  expect(await stack?.stop("SIGINT")).toBe(0);
  stack = await startStack(env);
  expect(stack.output()).not.toMatch(/the chain was reset/);
  // Something new after the restart proves the pipeline is live before counting again.
  await seedArbitrum({ dataDir: env.LAUNCHPAD_DATA_DIR as string, address: wallet });
  const after = await waitFor(
    "the second deposit in the feed",
    async () => {
      const items = await arbitrumEvents();
      return items.filter((e) => e.eventType === "perps.deposit.sent").length >= 2
        ? items
        : undefined;
    },
    120_000,
  );
  const ids = after.map((e) => e.sourceEventId);
  expect(new Set(ids).size).toBe(ids.length);
  expect(after.filter((e) => e.eventType === "bridge.completed")).toHaveLength(2);
  expect(after.filter((e) => e.eventType === "perps.deposit.sent")).toHaveLength(2);
  // The first pair is still there, unchanged.
  for (const e of first) expect(ids).toContain(e.sourceEventId);
  const log = readFileSync(
    join(env.LAUNCHPAD_DATA_DIR as string, "devnet", "arbitrum.json"),
    "utf8",
  );
  expect(JSON.parse(log).chainIdentity).toMatch(/^0x[0-9a-f]{64}$/);
}, 600_000);

it("a reorg on the second chain takes its events out of the feed again", async () => {
  const record = readArbitrumRecord(env.LAUNCHPAD_DATA_DIR as string);
  if (!record) throw new Error("no arbitrum record");
  const test = createTestClient({ mode: "anvil", transport: http(record.rpcUrl) });
  const snapshot = await test.snapshot();
  await seedArbitrum({ dataDir: env.LAUNCHPAD_DATA_DIR as string, address: wallet });
  const before = await waitFor(
    "the third deposit in the feed",
    async () => {
      const items = await arbitrumEvents();
      return items.filter((e) => e.eventType === "perps.deposit.sent").length >= 3
        ? items
        : undefined;
    },
    120_000,
  );
  const orphaned = before
    .filter((e) => e.eventType === "perps.deposit.sent")
    .map((e) => e.sourceEventId);

  // The abandoned branch: back to the snapshot, another transfer in, a longer chain.
  await test.revert({ id: snapshot });
  const chain = viemChain({ rpcUrls: [record.rpcUrl], id: 42161, name: "arbitrum" });
  const minter = createWalletClient({
    account: devnetAccounts().deployer,
    chain,
    transport: http(record.rpcUrl),
  });
  await minter.writeContract({
    address: record.usdc,
    abi: parseAbi(["function mint(address to, uint256 value)"]),
    functionName: "mint",
    args: [wallet, parseUnits("7", 6)],
  });
  await test.mine({ blocks: 5 });
  const after = await waitFor(
    "the reorged deposit gone and the new transfer in",
    async () => {
      const items = await arbitrumEvents();
      const sent = items.filter((e) => e.eventType === "perps.deposit.sent");
      const seven = items.some((e) => e.eventType === "bridge.completed" && e.data.amount === "7");
      return sent.length === 2 && seven ? items : undefined;
    },
    120_000,
  );
  const ids = after.map((e) => e.sourceEventId);
  expect(new Set(ids).size).toBe(ids.length);
  // Of the three deposits seen, the one of the abandoned branch is gone; the others stay.
  expect(orphaned.filter((sid) => !ids.includes(sid))).toHaveLength(1);
  expect(
    after
      .filter((e) => e.eventType === "bridge.completed")
      .map((e) => e.data.amount)
      .sort(),
  ).toEqual([ARBITRUM_SEED_USDC.minted, ARBITRUM_SEED_USDC.minted, "7"]);
}, 400_000);
