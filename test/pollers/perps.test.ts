import { pino } from "pino";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartWorkerReturnType, startWorker } from "../../jobs/worker.ts";
import { perpsHoldings } from "../../lib/agents/holdings.ts";
import { loadConfig } from "../../lib/config.ts";
import { pollerStatus } from "../../lib/pollers/status.ts";
import type { Fill } from "../../services/hyperliquid/protocol.ts";
import { expectedPerpsIds, pollerWorld, storedIds, until } from "./world.ts";

// The perps poller against the venue stand-in over HTTP, real Postgres and real pg-boss, at
// a tenth of the production tick (1 s). What an agent's feed must show: every fill once, the
// opens and closes with realized PnL, deposits; after outages, timeouts and a killed worker,
// nothing lost and nothing doubled.

let w: Awaited<ReturnType<typeof pollerWorld>>;
let worker: StartWorkerReturnType | undefined;
const addr = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
const A = addr();

const expected = (agentId: string, user: string) => expectedPerpsIds(w, agentId, user);
const stored = (agentId: string) => storedIds(w, agentId);

beforeAll(async () => {
  w = await pollerWorld();
  await w.addAgent("agent-a", A);
  worker = await startWorker({
    databaseUrl: w.db.url,
    log: pino({ level: "silent" }),
    config: loadConfig(w.env(), w.dataDir),
    jobs: ["pollers"],
  });
});
afterAll(async () => {
  await worker?.stop();
  await w?.stop();
});

describe("perps poller", () => {
  it("turns a deposit and a position's fills into feed events, and the account into holdings", async () => {
    await w.control("POST", "/deposit", { user: A, usdc: "1000" });
    await w.control("POST", "/fill", { user: A, coin: "BTC", side: "B", sz: "0.1" });
    await w.control("POST", "/fill", { user: A, coin: "BTC", side: "B", sz: "0.05", px: 65600 });
    await w.control("PUT", "/marks", { BTC: 66000 });
    const close = (await w.control("POST", "/close", { user: A, coin: "BTC" })) as Fill;
    const events = await until("the close in the feed", async () => {
      const e = await w.events("agent-a");
      return e.some((x) => x.event_type === "trade.close") && e;
    });
    expect(events.map((e) => e.event_type).sort()).toEqual(
      [
        "perps.deposit",
        "trade.fill",
        "trade.fill",
        "trade.fill",
        "trade.open",
        "trade.close",
      ].sort(),
    );
    const closeEvent = events.find((e) => e.event_type === "trade.close");
    // 0.1 from 65000 and 0.05 from 65600 (entry 65200) closed at 66000: +120.
    expect(closeEvent?.data).toMatchObject({
      market: "BTC",
      side: "long",
      size: "0.15",
      realizedPnl: "120.000000",
    });
    expect(closeEvent?.source_event_id).toBe(`close:${close.tid}:${close.oid}`);
    expect(closeEvent?.correlation_id).toBe(`hl:${close.hash}`);
    expect(events.find((e) => e.event_type === "perps.deposit")?.data).toMatchObject({
      usdc: "1000",
    });

    const state = (await w.control("GET", `/state?user=${A}`)) as {
      clearinghouse: { marginSummary: { accountValue: string } };
    };
    const holdings = await until("the account cached", async () => {
      const h = await perpsHoldings(
        {
          sql: w.db.sql,
          schema: "x",
          chain: undefined as never,
          at: { block: 0n, time: Date.now() / 1000, historic: false },
          bnbUsd: null,
        },
        A,
      );
      return (
        h.status === "ok" &&
        h.totalUsd === String(Number(state.clearinghouse.marginSummary.accountValue)) &&
        h
      );
    });
    expect(holdings.assets[0]).toMatchObject({
      asset: "USDC",
      chain: "hyperliquid",
      priceUsd: "1",
    });
    const status = await pollerStatus(w.db.sql);
    expect(status.find((s) => s.poller === "perps")).toMatchObject({ targets: 1, failing: [] });
  });

  it("loses no fill and doubles none across timeouts, 500s and a stopped venue", async () => {
    // Every request now hangs past the client's timeout; fills keep happening at the venue,
    // one of them reported late (its time before the newest fill the poller has seen).
    await w.control("PUT", "/fail", { mode: "hang" });
    const seen = Date.now();
    await w.control("POST", "/fill", { user: A, coin: "ETH", side: "A", sz: "1" });
    await w.control("POST", "/fill", {
      user: A,
      coin: "ETH",
      side: "B",
      sz: "0.4",
      time: seen - 60_000,
    });
    await until("a timed-out poll recorded", async () => {
      const [s] = await w.db.sql<{ failures: number; last_error: string }[]>`
        select failures, last_error from app.poller_state where poller = 'perps' and agent_id = 'agent-a'`;
      return (s?.failures ?? 0) >= 1 && s;
    });
    const failing = (await pollerStatus(w.db.sql)).find((s) => s.poller === "perps")?.failing;
    expect(failing?.[0]).toMatchObject({ agentId: "agent-a", target: A });
    // 500s, then the venue goes away entirely mid-poll and comes back from its saved state.
    await w.control("PUT", "/fail", { mode: "error" });
    await new Promise((r) => setTimeout(r, 1_500));
    await w.stopVenue();
    await new Promise((r) => setTimeout(r, 1_500));
    await w.startVenue();
    await w.control("POST", "/fill", { user: A, coin: "ETH", side: "B", sz: "0.6" });
    const want = await expected("agent-a", A);
    const got = await until("the feed to catch up", async () => {
      const s = await stored("agent-a");
      return s.length >= want.length && s;
    });
    expect(got).toEqual(want);
    const [s] = await w.db.sql<{ failures: number }[]>`
      select failures from app.poller_state where poller = 'perps' and agent_id = 'agent-a'`;
    expect(s?.failures).toBe(0);
  });

  it("a worker killed inside a poll's commit loses and doubles nothing after its restart", async () => {
    await worker?.stop();
    worker = undefined;
    const B = addr();
    await w.addAgent("agent-b", B);
    await w.control("POST", "/deposit", { user: B, usdc: "500" });
    await w.control("POST", "/fill", { user: B, coin: "SOL", side: "A", sz: "2" });
    await w.control("POST", "/close", { user: B, coin: "SOL" });
    const first = w.spawnWorker({ LAUNCHPAD_TEST_KILL_POINTS: "poll-commit:perps" });
    expect(await first.exited).toBe(-1);
    // Killed inside the transaction: neither its events nor its cursor were committed.
    expect(await stored("agent-b")).toEqual([]);
    const second = w.spawnWorker({ LAUNCHPAD_TEST_KILL_POINTS: "poll-commit:perps" });
    try {
      const want = await expected("agent-b", B);
      expect(want.length).toBe(5); // deposit, open fill + trade.open, close fill + trade.close
      const got = await until("agent B's feed", async () => {
        const s = await stored("agent-b");
        return s.length >= want.length && s;
      });
      expect(got).toEqual(want);
      // Agent A's history is untouched by the restart (the unique key holds it at one each).
      expect(await stored("agent-a")).toEqual(await expected("agent-a", A));
    } finally {
      second.child.kill("SIGTERM");
      await second.exited;
    }
  });
});
