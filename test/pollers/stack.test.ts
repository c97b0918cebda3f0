import { afterAll, beforeAll, expect, it } from "vitest";
import { isolatedEnv, runCli, type Stack, startStack, waitFor } from "../helpers/cli.ts";
import { launchEnv, nextIp } from "../helpers/launch.ts";

// What docs/pollers.md ("`devnet seed`: one agent with everything") promises, through the whole
// stack as a user runs it: a fresh `launchpad start` (test mode, every poll period scaled by
// POLL_TIME_SCALE) and `launchpad devnet seed`. One agent's feed then shows perps fills with opens
// and closes, a Safe transaction's propose, confirm and execute under one correlation id, posts,
// and a USDC deposit from the second chain (sent on Arbitrum, credited by the venue); its holdings
// have the `hyperliquid` source and its social stats the follower count. A second seed on the same
// stack adds new ones.

/** Polls 50 times as often as in production: social every 6 s, Safe 0.6 s, perps at most once a second (pg-boss). */
const POLL_TIME_SCALE = "0.02";

let stack: Stack | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  env = launchEnv(await isolatedEnv(), { POLL_TIME_SCALE, LOG_LEVEL: "warn" });
  stack = await startStack(env);
}, 300_000);
afterAll(async () => {
  await stack?.cleanup();
});

type Item = {
  eventType: string;
  source: string;
  sourceEventId: string;
  correlationId: string | null;
  data: Record<string, unknown>;
};

const TYPES = [
  "trade.open",
  "trade.close",
  "trade.fill",
  "perps.deposit",
  "perps.deposit.sent",
  "bridge.completed",
  "safe.tx.proposed",
  "safe.tx.confirmed",
  "safe.tx.executed",
  "tweet.posted",
];

const get = async <T>(path: string): Promise<T> => {
  const r = await fetch(`${stack?.apiUrl}${path}`, { headers: { "x-forwarded-for": nextIp() } });
  expect(r.status, path).toBe(200);
  return ((await r.json()) as { data: T }).data;
};
const feed = async (token: string) =>
  (
    await get<{ items: Item[] }>(
      `/v2/agents/${token}/events?limit=100&eventType=${TYPES.join(",")}`,
    )
  ).items;

/** `launchpad devnet seed` as a user runs it (one small story: the agent is the point here). */
async function seed(): Promise<{
  token: string;
  followers: number;
  safeTxHash: string;
  out: string;
}> {
  const r = await runCli(["devnet", "seed", "--tokens", "1", "--trades", "4"], env, 300_000);
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  const match = (re: RegExp) => {
    const m = re.exec(r.stdout)?.[1];
    if (!m) throw new Error(`no ${re} in the seed's output:\n${r.stdout}`);
    return m;
  };
  return {
    token: match(/agent's page: \S+\/agent\/(0x[0-9a-f]{40})/),
    followers: Number(match(/has (\d+) followers/)),
    safeTxHash: match(/safe: (0x[0-9a-f]{64}) proposed/),
    out: r.stdout,
  };
}

const count = (items: Item[], type: string, source?: string) =>
  items.filter((e) => e.eventType === type && (!source || e.source === source)).length;

/** Waits until the feed has at least `n` of each type (by its source). */
async function feedWith(token: string, want: [string, string, number][]): Promise<Item[]> {
  return waitFor(
    "the agent's feed",
    async () => {
      const items = await feed(token);
      return want.every(([type, source, n]) => count(items, type, source) >= n) ? items : undefined;
    },
    120_000,
  );
}

let first: Awaited<ReturnType<typeof seed>>;

it("after a fresh start and one seed, one agent's feed, holdings and social stats show it all", async () => {
  first = await seed();
  const token = first.token;
  const items = await feedWith(token, [
    ["perps.deposit", "hl-listener", 1],
    ["trade.open", "hl-listener", 2],
    ["trade.close", "hl-listener", 1],
    ["bridge.completed", "evm-indexer:arbitrum", 1],
    ["perps.deposit.sent", "evm-indexer:arbitrum", 1],
    ["safe.tx.proposed", "safe-poller", 1],
    ["safe.tx.confirmed", "safe-poller", 1],
    ["safe.tx.executed", "evm-indexer:bsc", 1],
    ["tweet.posted", "social-poller", 3],
  ]);
  // The venue's fills: BTC opened, added to, closed with its PnL; ETH opened short.
  const opens = items.filter((e) => e.eventType === "trade.open").map((e) => e.data.market);
  expect(opens.sort()).toEqual(["BTC", "ETH"]);
  const close = items.find((e) => e.eventType === "trade.close");
  expect(close?.data).toMatchObject({ market: "BTC", realizedPnl: expect.any(String) });
  // The USDC deposit from Arbitrum: sent there, credited by the venue, the same amount.
  const sent = items.find((e) => e.eventType === "perps.deposit.sent");
  const credited = items.find((e) => e.eventType === "perps.deposit");
  expect(Number(sent?.data.amount)).toBeGreaterThan(0);
  expect(Number(credited?.data.usdc)).toBe(Number(sent?.data.amount));
  // One Safe transaction: proposed, confirmed and executed under its safeTxHash.
  const safeEvents = items.filter((e) => e.eventType.startsWith("safe.tx."));
  expect(safeEvents.map((e) => e.eventType).sort()).toEqual([
    "safe.tx.confirmed",
    "safe.tx.executed",
    "safe.tx.proposed",
  ]);
  expect(new Set(safeEvents.map((e) => e.correlationId))).toEqual(new Set([first.safeTxHash]));
  expect(count(items, "tweet.posted")).toBe(3);

  const holdings = await get<{ sources: { hyperliquid: { status: string; totalUsd: string } } }>(
    `/v2/agents/${token}/holdings`,
  );
  expect(holdings.sources.hyperliquid.status).toBe("ok");
  expect(Number(holdings.sources.hyperliquid.totalUsd)).toBeGreaterThan(0);
  const social = await waitFor(
    "the follower count",
    async () => {
      const s = await get<{ followerCount: number | null }>(`/v2/agents/${token}/social-stats`);
      return s.followerCount === first.followers ? s : undefined;
    },
    60_000,
  );
  expect(social.followerCount).toBe(first.followers);
}, 400_000);

it("a second seed on the same stack adds a new Safe transaction, fills, posts and a deposit", async () => {
  const second = await seed();
  expect(second.token).toBe(first.token);
  expect(second.safeTxHash).not.toBe(first.safeTxHash);
  expect(second.followers).toBeGreaterThan(first.followers);
  const items = await feedWith(second.token, [
    ["perps.deposit", "hl-listener", 2],
    ["perps.deposit.sent", "evm-indexer:arbitrum", 2],
    ["safe.tx.executed", "evm-indexer:bsc", 2],
    ["safe.tx.confirmed", "safe-poller", 2],
    ["tweet.posted", "social-poller", 6],
    // The ETH short of the first run is closed, then opened again.
    ["trade.close", "hl-listener", 3],
  ]);
  const ids = items.map((e) => `${e.source} ${e.sourceEventId}`);
  expect(new Set(ids).size).toBe(ids.length);
  const executed = items.filter((e) => e.eventType === "safe.tx.executed");
  expect(new Set(executed.map((e) => e.correlationId))).toEqual(
    new Set([first.safeTxHash, second.safeTxHash]),
  );
}, 400_000);
