import { pino } from "pino";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { startSafeTxServiceStandIn } from "../../devnet/stand-ins/safe-tx-service/start.ts";
import { POLLER_LIMITS } from "../../jobs/limits.ts";
import { safeRound } from "../../jobs/pollers/rounds.ts";
import { pollSafeAgent, type SafePollContext, safeBudget } from "../../jobs/pollers/safe.ts";
import { createSafeTxServiceClient } from "../../services/safe-tx-service/client.ts";

// The Safe poller's rounds against the stand-in at the hosted API's 5 requests a second (real
// Postgres, real HTTP). More treasuries than a round pays for: each round's polls, run all at
// once as the worker's jobs are, keep to the budget's 4 a second (the service never answers
// 429), a watched treasury goes first, and every treasury is reached within the rounds its
// share takes. A 429 anyway (another client on the key) stops the next rounds.

const log = pino({ level: "silent" });
const L = POLLER_LIMITS.safe;
const N = 20;
const ROUND_MS = 2_500; // 4 a second: 10 polls a round, 2 rounds for every treasury
const WATCHED = `agent-${N - 1}`; // last by id: it goes first only because it is watched

let db: TestDatabase;
let standIn: Awaited<ReturnType<typeof startSafeTxServiceStandIn>>;
const treasury = (i: number) => privateKeyToAddress(`0x${(i + 1).toString(16).padStart(64, "0")}`);

function context(url: string, venue: string): SafePollContext {
  return {
    sql: db.sql,
    safe: createSafeTxServiceClient({ apiUrl: url, timeoutMs: 5_000 }),
    log,
    pacing: {
      budget: safeBudget(venue),
      maxTurnWaitMs: L.maxTurnWaitMs,
      backoffMs: 60_000,
      maxBackoffMs: 120_000,
    },
  };
}

const polled = async (): Promise<Set<string>> =>
  new Set(
    (
      await db.sql<{ agent_id: string }[]>`
        select agent_id from app.poller_state where poller = 'safe' and last_success_at is not null`
    ).map((r) => r.agent_id),
  );

beforeAll(async () => {
  db = await startTestDatabase();
  standIn = await startSafeTxServiceStandIn({ chainId: 56, log });
  for (let i = 0; i < N; i++) {
    await db.sql`insert into app.agents (agent_id, name, ticker, description, image_url, treasury_address)
      values (${`agent-${i}`}, ${`Agent ${i}`}, 'SAF', 'treasury agent', 'https://example.com/a.png',
        ${treasury(i).toLowerCase()})`;
  }
  await db.sql`insert into app.watched_agents (agent_id, until)
    values (${WATCHED}, now() + interval '1 hour')`;
});
afterAll(async () => {
  await standIn?.stop();
  await db?.stop();
});

describe("the Safe poller's rounds", () => {
  it("keep under the service's limit, take a watched treasury first and reach every one", async () => {
    const c = context(standIn.url, "safe-tx-service");
    const budget = c.pacing?.budget as NonNullable<SafePollContext["pacing"]>["budget"];
    const seen: string[][] = [];
    for (let r = 0; r < 2; r++) {
      const round = await safeRound(db.sql, budget, { roundMs: ROUND_MS });
      expect(round).toHaveLength((L.requestsPerSecond * ROUND_MS) / 1_000);
      seen.push(round);
      await Promise.all(round.map((agentId) => pollSafeAgent(c, agentId)));
    }
    expect(seen[0]?.[0]).toBe(WATCHED);
    // Never-polled treasuries are older than a watched one read a moment ago: round 2 is theirs.
    expect(seen[1]).not.toContain(WATCHED);
    expect(await polled()).toEqual(new Set(Array.from({ length: N }, (_, i) => `agent-${i}`)));
    const state = (await (await fetch(`${standIn.url}/_control/state`)).json()) as {
      rateLimited: number;
    };
    expect(state.rateLimited).toBe(0);
    // Every treasury has data now; the watched one is the stalest by its weight: first again.
    const third = await safeRound(db.sql, budget, { roundMs: ROUND_MS });
    expect(third[0]).toBe(WATCHED);
  });

  it("stops every round after a 429 until the back-off has passed", async () => {
    // Another client on the key (the stand-in at 1 a second): the second request meets 429.
    const strict = await startSafeTxServiceStandIn({ chainId: 56, log, requestsPerSecond: 1 });
    try {
      const c = context(strict.url, "safe-tx-service:shared-key");
      const budget = c.pacing?.budget as NonNullable<SafePollContext["pacing"]>["budget"];
      await Promise.all(["agent-0", "agent-1"].map((a) => pollSafeAgent(c, a)));
      const [row] = await db.sql<{ rate_limited: number }[]>`
        select rate_limited from app.venue_budget where venue = ${budget.venue}`;
      expect(row?.rate_limited).toBe(1);
      expect(await safeRound(db.sql, budget, { roundMs: ROUND_MS })).toEqual([]);
    } finally {
      await strict.stop();
    }
  });
});
