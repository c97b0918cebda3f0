import { beforeAll, expect, it } from "vitest";
import { SEED_ENGAGEMENT } from "../../devnet/agent-seed/social.ts";
import { STAND_IN_LIMITS } from "../../devnet/limits.ts";
import { runCli, type Stack, waitFor } from "../helpers/cli.ts";
import { nextIp } from "../helpers/launch.ts";
import { sharedStack } from "../helpers/shared-stack.ts";
import { launchBrowser } from "../web/browser.ts";

// What docs/pollers.md ("`devnet seed`: one agent with everything") promises, through the whole
// stack as a user runs it: `launchpad start` (test mode, every poll period scaled by
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
  ({ stack, env } = await sharedStack());
  // The shared stack's environment (test/helpers/shared-stack.ts) carries this scale.
  expect(env.POLL_TIME_SCALE).toBe(POLL_TIME_SCALE);
}, 300_000);

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

it("after one seed, one agent's feed, holdings and social stats show it all", async () => {
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
  // The seed's posts carry X's engagement counts (public_metrics on the stand-in's timeline),
  // stored by the social poller as it stores X's: none of them shows zeros.
  type Post = { text: string; engagement: { likeCount: number; replyCount: number } | null };
  const engaged = await waitFor(
    "the posts' engagement",
    async () => {
      const s = await get<{ posts: Post[] }>(`/v2/agents/${token}/social-stats`);
      const likes = s.posts.map((x) => x.engagement?.likeCount ?? 0);
      return likes.length === 3 && likes.every((n) => n > 0) ? s.posts : undefined;
    },
    60_000,
  );
  const byText = (start: string) => engaged.find((x) => x.text.startsWith(start))?.engagement;
  expect(byText("gm from")).toMatchObject({
    likeCount: SEED_ENGAGEMENT[0].like_count,
    replyCount: SEED_ENGAGEMENT[0].reply_count,
  });
  expect(byText("Closed a BTC long")?.likeCount).toBe(SEED_ENGAGEMENT[1].like_count);
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

it("the perps read and the agent page's perps panel (in Chromium) show the seeded account", async () => {
  type Perps = {
    status: string;
    accountValue: string;
    positions: { coin: string; side: string; size: string }[];
    pnl: { total: string };
    trades: { fills: number; wins: number; losses: number };
  };
  const token = first.token;
  const before = await waitFor(
    "the perps account read",
    async () => {
      const p = await get<Perps>(`/v2/agents/${token}/perps`);
      return p.status === "ok" && p.trades.fills > 0 ? p : undefined;
    },
    60_000,
  );
  // The seed closed a position: one fill with a realized result at least.
  expect(before.trades.wins + before.trades.losses).toBeGreaterThan(0);
  const followers = await get<{ points: { followerCount: number }[] }>(
    `/v2/agents/${token}/follower-history?window=1d`,
  );
  expect(followers.points.length).toBeGreaterThan(0);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const title = (k: string) =>
      page.$eval(`#perps [data-perps="${k}"] span`, (e) => e.getAttribute("title"));
    // The venue's marks take a random step every second, and a poll stores each within 0.2 s
    // here: a page read beside two API reads raced them (the page redrew live between its own
    // read and the second one). So the walk stops, a poll after that stores the still state,
    // and the page must show exactly what the API says; the walk resumes for the live part.
    const walk = (everyMs: number) =>
      fetch(`http://127.0.0.1:${env.HYPERLIQUID_PORT}/_control/walk`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ everyMs, stepBps: STAND_IN_LIMITS.hyperliquidWalkStepBps }),
      });
    expect((await walk(0)).status).toBe(200);
    const stopped = Date.now();
    const after = await waitFor(
      "a poll after the walk stopped",
      async () => {
        const p = await get<Perps & { asOf: string }>(`/v2/agents/${token}/perps`);
        return Date.parse(p.asOf) > stopped + 500 ? p : undefined;
      },
      30_000,
    );
    try {
      const res = await page.goto(`${env.WEB_URL}/agent/${token}`, {
        waitUntil: "domcontentloaded",
      });
      expect(res?.status()).toBe(200);
      expect(await title("accountValue")).toBe(`$${after.accountValue}`);
    } finally {
      expect((await walk(STAND_IN_LIMITS.hyperliquidWalkEveryMs)).status).toBe(200);
    }
    expect(await page.$eval('#perps [data-perps="winLoss"]', (e) => e.textContent?.trim())).toBe(
      `${after.trades.wins} / ${after.trades.losses}`,
    );
    const coins = await page.$$eval("#perps-positions tr", (rows) =>
      rows.map((r) => r.getAttribute("data-coin")),
    );
    expect(coins).toEqual(after.positions.map((p) => p.coin));

    // Live: each poll stores new marks and the bridge says so on the agent channel; the panel
    // draws a newer read without a reload (its "As of" and value move; the marker stays).
    await page.evaluate("window.notReloaded = true");
    const asOf = async () => page.$eval("#perps p.small", (e) => e.textContent?.trim() ?? "");
    const first = await asOf();
    await page.waitForFunction(
      `document.querySelector("#perps p.small")?.textContent?.trim() !== ${JSON.stringify(first)}`,
      { timeout: 30_000 },
    );
    expect(await page.evaluate("window.notReloaded")).toBe(true);
    const redrawn = await asOf();
    const now = await get<Perps & { asOf: string }>(`/v2/agents/${token}/perps`);
    expect(Date.parse(redrawn.replace("As of ", ""))).toBeGreaterThan(
      Date.parse(first.replace("As of ", "")),
    );
    expect(Date.parse(redrawn.replace("As of ", ""))).toBeLessThanOrEqual(Date.parse(now.asOf));
    expect(await title("accountValue")).toMatch(/^\$-?[0-9]/);
  } finally {
    await browser.close();
  }
}, 120_000);
