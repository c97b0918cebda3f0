import { pino } from "pino";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POLLER_LIMITS } from "../../jobs/limits.ts";
import { type PerpsPollContext, pollPerpsAccount } from "../../jobs/pollers/perps.ts";
import { trySpend } from "../../lib/pollers/budget.ts";
import { pollerStatus } from "../../lib/pollers/status.ts";
import { createHyperliquidClient } from "../../services/hyperliquid/client.ts";
import { expectedPerpsIds, pollerWorld, storedIds, until } from "./world.ts";

// The perps poller's pacing, one poll at a time (no scheduler): real Postgres, the venue
// stand-in over HTTP, a clock the test moves. The shared budget under concurrent spenders; a
// 429 that stops every agent's polls, not just one; the sweep that reads a fill no figure shows.

let w: Awaited<ReturnType<typeof pollerWorld>>;
const addr = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
const SWEEP = POLLER_LIMITS.perps.sweepEveryMs;
let clock = Date.now();

function ctx(budget: { limit?: number; backoffMs?: number } = {}): PerpsPollContext {
  return {
    sql: w.db.sql,
    hl: createHyperliquidClient({ apiUrl: w.hlUrl, retries: 0, timeoutMs: 2_000 }),
    log: pino({ level: "silent" }),
    sweepEveryMs: SWEEP,
    now: () => clock,
    pacing: {
      sql: w.db.sql,
      budget: { venue: "hyperliquid", limit: budget.limit ?? 900, windowMs: 60_000 },
      backoffMs: budget.backoffMs ?? 60_000,
      maxBackoffMs: 10 * 60_000,
    },
  };
}

const expected = (agentId: string, user: string) => expectedPerpsIds(w, agentId, user);
const stored = (agentId: string) => storedIds(w, agentId);
const infoRequests = async () =>
  ((await w.control("GET", "/weight")) as { log: unknown[] }).log.length;
const resetBudget = async () => {
  await w.db.sql`delete from app.venue_weight`;
  await w.db.sql`delete from app.venue_budget`;
};

beforeAll(async () => {
  w = await pollerWorld();
});
afterAll(async () => {
  await w?.stop();
});

describe("perps poller pacing", () => {
  it("never lets concurrent spenders overspend the shared budget", async () => {
    await resetBudget();
    const budget = { venue: "hyperliquid", limit: 40, windowMs: 60_000 };
    // 60 requests of weight 2 from the pool's separate connections at once: exactly 20 fit.
    const results = await Promise.all(
      Array.from({ length: 60 }, () => trySpend(w.db.sql, budget, 2)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(20);
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.why === "budget")).toBe(true);
    const [b] = (await pollerStatus(w.db.sql)).flatMap((s) => (s.budget ? [s.budget] : []));
    expect(b).toMatchObject({ limit: 40, used: 40, deferred: 40, rateLimited: 0 });
  });

  it("keeps the freed weight for the oldest refused large spend, not cheaper ones", async () => {
    await resetBudget();
    const budget = { venue: "hyperliquid", limit: 50, windowMs: 1_000 };
    expect(await trySpend(w.db.sql, budget, 40)).toEqual({ ok: true });
    // A sweep (42) is refused and takes the head of the line...
    const sweep = { claimant: "agent-x", claim: true };
    expect(await trySpend(w.db.sql, budget, 42, sweep)).toEqual({ ok: false, why: "budget" });
    // ...so a cheap poll that would fit (40 + 2 <= 50) waits behind it, and no one else claims.
    expect(await trySpend(w.db.sql, budget, 2)).toEqual({ ok: false, why: "budget" });
    expect(await trySpend(w.db.sql, budget, 42, { claimant: "agent-y", claim: true })).toEqual({
      ok: false,
      why: "budget",
    });
    // Once the 40 leaves the window the sweep goes first; then the line is open again.
    await until("the sweep's turn", async () => (await trySpend(w.db.sql, budget, 42, sweep)).ok);
    expect(await trySpend(w.db.sql, budget, 2)).toEqual({ ok: true });
  });

  it("defers a poll when the budget is spent, and runs it once there is budget again", async () => {
    await resetBudget();
    const A = addr();
    await w.addAgent("pace-a", A);
    await w.control("POST", "/deposit", { user: A, usdc: "100" });
    // A first poll reads the state only (2): the panel has figures at once.
    expect(await pollPerpsAccount(ctx({ limit: 41 }), "pace-a", A)).toEqual({
      events: 0,
      full: false,
    });
    // Its history comes with the sweep, 2 + 20 + 20: two periods late it claims, but a budget
    // of 41 cannot take it.
    clock += 2 * SWEEP;
    expect(await pollPerpsAccount(ctx({ limit: 41 }), "pace-a", A)).toEqual({ deferred: "budget" });
    expect(await stored("pace-a")).toEqual([]);
    const [pace] = (await pollerStatus(w.db.sql)).find((s) => s.poller === "perps")?.pace ?? [];
    expect(pace).toMatchObject({ agentId: "pace-a", deferrals: 1 });
    expect(await pollPerpsAccount(ctx({ limit: 1000 }), "pace-a", A)).toMatchObject({
      full: true,
    });
    expect(await stored("pace-a")).toEqual(await expected("pace-a", A));
  });

  it("a 429 stops every agent's polls until the back-off ends, then nothing is lost", async () => {
    await resetBudget();
    const users = [addr(), addr(), addr()];
    for (const [i, u] of users.entries()) {
      await w.addAgent(`rl-${i}`, u);
      await w.control("POST", "/deposit", { user: u, usdc: String(100 + i) });
    }
    const c = ctx({ backoffMs: 1_500 });
    await w.control("PUT", "/fail", { mode: "rate-limit", count: 1 });
    expect(await pollPerpsAccount(c, "rl-0", users[0] as string)).toEqual({
      deferred: "rate-limited",
    });
    // The other agents do not ask the venue at all while the poller backs off.
    const before = await infoRequests();
    expect(await pollPerpsAccount(c, "rl-1", users[1] as string)).toEqual({ deferred: "backoff" });
    expect(await pollPerpsAccount(c, "rl-2", users[2] as string)).toEqual({ deferred: "backoff" });
    expect(await infoRequests()).toBe(before);
    const perps = (await pollerStatus(w.db.sql)).find((s) => s.poller === "perps");
    expect(perps?.budget?.rateLimited).toBe(1);
    expect(perps?.budget?.blockedUntil).not.toBeNull();
    expect(perps?.failing).toEqual([]);
    // Fills keep happening at the venue meanwhile; after the back-off every poll catches up.
    await w.control("POST", "/fill", { user: users[1], coin: "BTC", side: "B", sz: "0.001" });
    await until("the back-off to end", async () => {
      const [b] = await w.db.sql<{ over: boolean }[]>`
        select blocked_until <= now() as over from app.venue_budget where venue = 'hyperliquid'`;
      return b?.over;
    });
    // Each account's first poll reads its state; its sweep brings the history.
    for (const [i, u] of users.entries())
      expect(await pollPerpsAccount(c, `rl-${i}`, u)).toEqual({ events: 0, full: false });
    clock += 2 * SWEEP;
    for (const [i, u] of users.entries()) {
      expect(await pollPerpsAccount(c, `rl-${i}`, u)).toMatchObject({ full: true });
      expect(await stored(`rl-${i}`)).toEqual(await expected(`rl-${i}`, u));
    }
    // A 429 again soon after: the back-off doubles.
    await w.control("PUT", "/fail", { mode: "rate-limit", count: 1 });
    clock += SWEEP;
    expect(await pollPerpsAccount(c, "rl-0", users[0] as string)).toEqual({
      deferred: "rate-limited",
    });
    const [b] = await w.db.sql<{ backoff_ms: number; rate_limited: number }[]>`
      select backoff_ms, rate_limited from app.venue_budget where venue = 'hyperliquid'`;
    expect(b).toEqual({ backoff_ms: 3_000, rate_limited: 2 });
  });

  it("reads fills only on a change, and a fill that changes no figure at the sweep", async () => {
    await resetBudget();
    const D = addr();
    await w.addAgent("sweep-d", D);
    await w.control("POST", "/deposit", { user: D, usdc: "1000" });
    const c = ctx();
    // The first poll reads the state, the first sweep the history.
    expect(await pollPerpsAccount(c, "sweep-d", D)).toEqual({ events: 0, full: false });
    clock += SWEEP;
    expect(await pollPerpsAccount(c, "sweep-d", D)).toMatchObject({ full: true, events: 1 });
    // An unchanged account: the next poll reads its clearinghouse state only.
    const fillReads = async () =>
      ((await w.control("GET", "/state")) as { requests: Record<string, number> }).requests
        .userFillsByTime ?? 0;
    let reads = await fillReads();
    clock += 1_000;
    expect(await pollPerpsAccount(c, "sweep-d", D)).toEqual({ events: 0, full: false });
    expect(await fillReads()).toBe(reads);
    // A round trip between two polls whose realized PnL pays exactly its fees (0.045 % taker
    // on each side): flat before and after, same cash. No figure shows it.
    const before = (await w.control("GET", `/state?user=${D}`)).clearinghouse;
    await w.control("POST", "/fill", { user: D, coin: "ETH", side: "B", sz: "1", px: 99_955 });
    await w.control("POST", "/fill", { user: D, coin: "ETH", side: "A", sz: "1", px: 100_045 });
    const after = (await w.control("GET", `/state?user=${D}`)).clearinghouse;
    expect({ ...(after as object), time: 0 }).toEqual({ ...(before as object), time: 0 });
    clock += 1_000;
    expect(await pollPerpsAccount(c, "sweep-d", D)).toEqual({ events: 0, full: false });
    const deposit = (await expected("sweep-d", D)).filter((e) => e.startsWith("perps.deposit"));
    expect(await stored("sweep-d")).toEqual(deposit);
    // The sweep reads them, once.
    clock += SWEEP;
    expect(await pollPerpsAccount(c, "sweep-d", D)).toEqual({ events: 4, full: true });
    expect(await stored("sweep-d")).toEqual(await expected("sweep-d", D));
    // A fill that moves a position is read at the next poll, sweep or not.
    clock += 1_000;
    reads = await fillReads();
    await w.control("POST", "/fill", { user: D, coin: "BTC", side: "A", sz: "0.001" });
    expect(await pollPerpsAccount(c, "sweep-d", D)).toEqual({ events: 2, full: true });
    expect(await fillReads()).toBe(reads + 1);
    expect(await stored("sweep-d")).toEqual(await expected("sweep-d", D));
    // The marks move the open position's value, margins and the account value, not its own
    // figures: no fills read for that.
    await w.control("PUT", "/marks", { BTC: 61_000 });
    clock += 1_000;
    expect(await pollPerpsAccount(c, "sweep-d", D)).toEqual({ events: 0, full: false });
    expect(await fillReads()).toBe(reads + 1);
  });
});
