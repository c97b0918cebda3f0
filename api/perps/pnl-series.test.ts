import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { add, parseDec, sub, ZERO } from "../../lib/agents/decimal.ts";
import { PERPS_SOURCE } from "../../lib/pollers/sources.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";
import { PNL_WINDOWS, type PnlWindow, pnlSeries, readPnlSeriesJson } from "./pnl-series.ts";

// The series JSON Postgres writes must be the bytes `pnlSeries` + JSON.stringify give over the
// same rows (test/perps/perps-reads.test.ts checks the figures themselves against the venue).

const A = "0x00000000000000000000000000000000000000aa";
const HOUR = 3_600_000;
const NOW = Date.parse("2026-11-20T12:34:56.789Z");
let db: TestDatabase;

beforeAll(async () => {
  db = await startTestDatabase();
  const sql = db.sql;
  await sql`insert into app.agents (agent_id, name) values ('a', 'A'), ('b', 'B')`;
  // 40 days of hours: values with and without fractions, 78-digit ones, hours written before
  // venue_time existed (their polled_at, with microseconds), a gap.
  await sql`insert into app.perps_account_hours (address, hour, account_value, polled_at, venue_time)
    select ${A}, date_trunc('hour', ${new Date(NOW)}::timestamptz) - h * interval '1 hour',
      case when h % 5 = 0 then 1000 + h when h = 7 then 10::numeric ^ 40 + 0.5
        else 1000.25 + h * 1.125 end,
      ${new Date(NOW)}::timestamptz - h * interval '1 hour' + interval '17.123456 seconds',
      case when h % 9 = 0 then null
        else ${new Date(NOW)}::timestamptz - h * interval '1 hour' - interval '3.5 seconds' end
    from generate_series(1, 960) h where h not between 100 and 130`;
  await sql`insert into app.perps_accounts (address, agent_id, account_value, withdrawable,
      margin_used, venue_time, polled_at)
    values (${A}, 'a', 2000.000100, 0, 0, ${new Date(NOW - 1000)}, ${new Date(NOW)})`;
  // Ledger flows: deposits, withdrawals and transfers with and without a fee, one at a sample's very time,
  // two at one time, microseconds, and another account's and another agent's (not counted).
  const flows: [string, string, number, Record<string, string>][] = [
    ["a", "perps.deposit", NOW - 2 * HOUR, { usdc: "500" }],
    ["a", "perps.withdraw", NOW - 2 * HOUR, { usdc: "200", fee: "1" }],
    ["a", "perps.withdraw", NOW - 30 * HOUR, { usdc: "50.5" }],
    ["a", "perps.deposit", NOW - 3 * HOUR - 3500, { usdc: "0.000001" }],
    ["a", "perps.deposit", NOW - 8 * 24 * HOUR, { usdc: "10000" }],
    ["a", "perps.deposit", NOW - 39 * 24 * HOUR, { usdc: "7" }],
    ["a", "perps.transfer.in", NOW - 5 * HOUR, { usdc: "40", kind: "accountClassTransfer" }],
    ["a", "perps.transfer.out", NOW - 6 * HOUR, { usdc: "30", fee: "1", kind: "internalTransfer" }],
    ["a", "perps.transfer.out", NOW - 50 * HOUR, { usdc: "12.25", kind: "subAccountTransfer" }],
    ["b", "perps.deposit", NOW - 2 * HOUR, { usdc: "999" }],
  ];
  let n = 0;
  for (const [agent, type, at, data] of flows) {
    await sql`insert into app.agent_events (agent_id, event_type, category, source,
        source_event_id, occurred_at, data)
      values (${agent}, ${type}, 'treasury', ${PERPS_SOURCE}, ${`ledger:${n++}`},
        ${new Date(at)}::timestamptz + interval '0.000321 seconds',
        ${sql.json({ account: A, ...data } as never)})`;
  }
  await sql`insert into app.agent_events (agent_id, event_type, category, source,
      source_event_id, occurred_at, data)
    values ('a', 'perps.deposit', 'treasury', ${PERPS_SOURCE}, 'ledger:other',
      ${new Date(NOW - HOUR)}, ${sql.json({ account: `0x${"bb".repeat(20)}`, usdc: "5" } as never)})`;
});
afterAll(() => db?.stop());

/** The series as the object path reads and builds it (the queries before the JSON path). */
async function reference(agentId: string, address: string | null, window: PnlWindow) {
  const sql = db.sql;
  const span = { "1d": 24 * HOUR, "7d": 7 * 24 * HOUR, "30d": 30 * 24 * HOUR, all: null }[window];
  const from = span === null ? null : new Date(NOW - span);
  const none = { address, window, from: from?.toISOString() ?? null, points: [], pnl: "0" };
  if (!address) return none;
  const since = from ?? new Date(0);
  const hours = await sql<{ time: Date; value: string }[]>`
    select coalesce(venue_time, polled_at) as time, account_value::text as value
    from app.perps_account_hours where address = ${address}
      and coalesce(venue_time, polled_at) >= ${since} order by hour`;
  const [latest] = await sql<{ time: Date; value: string }[]>`
    select venue_time as time, account_value::text as value from app.perps_accounts
    where address = ${address} and venue_time >= ${since}`;
  const ledger = await sql<{ time: Date; type: string; usdc: string; fee: string | null }[]>`
    select occurred_at as time, event_type as type, data->>'usdc' as usdc, data->>'fee' as fee
    from app.agent_events where agent_id = ${agentId} and source = ${PERPS_SOURCE}
      and event_type in ('perps.deposit', 'perps.withdraw', 'perps.transfer.in', 'perps.transfer.out')
      and data->>'account' = ${address} and occurred_at >= ${since} order by occurred_at, id`;
  const samples = [...hours];
  const last = samples.at(-1);
  if (latest && (!last || latest.time > last.time)) samples.push(latest);
  const flows = ledger.map((l) => ({
    time: l.time,
    amount:
      l.type === "perps.deposit" || l.type === "perps.transfer.in"
        ? parseDec(l.usdc)
        : sub(ZERO, add(parseDec(l.usdc), parseDec(l.fee ?? "0"))),
  }));
  const points = pnlSeries(samples, flows);
  return { ...none, points, pnl: points.at(-1)?.pnl ?? "0" };
}

describe("the PnL series as JSON from Postgres", () => {
  it("equals pnlSeries + JSON.stringify for every window, with and without an account", async () => {
    for (const window of PNL_WINDOWS) {
      for (const [agentId, address] of [
        ["a", A],
        ["b", A],
        ["a", `0x${"cc".repeat(20)}`],
        ["a", null],
      ] as const) {
        const { json } = await readPnlSeriesJson(
          db.sql,
          { agentId, address },
          window,
          new Date(NOW),
        );
        const want = JSON.stringify(await reference(agentId, address, window));
        expect(json, `${window} ${agentId} ${address}`).toBe(want);
      }
    }
    // The figures are not all trivial: the 30-day series has hundreds of points and flows.
    const month = JSON.parse(
      (await readPnlSeriesJson(db.sql, { agentId: "a", address: A }, "30d", new Date(NOW))).json,
    );
    expect(month.points.length).toBeGreaterThan(600);
    expect(month.points.at(-1).netFlows).not.toBe("0");
  });

  it("says when the clock alone changes the answer: when its oldest point leaves the window", async () => {
    const read = async (window: PnlWindow, at: number) =>
      readPnlSeriesJson(db.sql, { agentId: "a", address: A }, window, new Date(at));
    const points = (json: string) => JSON.stringify(JSON.parse(json).points);
    for (const window of ["1d", "7d"] as const) {
      const { json, expiresAt } = await read(window, NOW);
      expect(expiresAt).toBeGreaterThan(NOW);
      // Up to the moment it names, the same points.
      expect(points((await read(window, expiresAt - 1)).json)).toBe(points(json));
      // At it, the oldest is gone (and every pnl is now counted from the next one).
      const later = JSON.parse((await read(window, expiresAt)).json).points;
      expect(later[0].time).toBe(JSON.parse(json).points[1].time);
    }
    expect((await read("all", NOW)).expiresAt).toBe(Infinity);
  });
});
