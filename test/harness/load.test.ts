// what: The short load run: the whole stack at 0.45 s blocks with 20 agents, two API and two worker processes on a Postgres apart from the stack, a few launches through the API, trades, readers, WebSocket subscribers and webhook receivers in the public world, one sweep step; the report has every figure and the run lost nothing (every trade indexed once, every launch answered, every webhook delivered, once with two workers), with its curves over time and where the database's time went. Timings are printed, not asserted.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { writeReport } from "../helpers/load/report.ts";
import { runLoad } from "../helpers/load/run.ts";

it("runs the load harness small and its report holds every figure and the exactly-once checks", async () => {
  const out = mkdtempSync(join(tmpdir(), "launchpad-load-"));
  const r = await runLoad(
    {
      agents: 20,
      minutes: 0,
      tradesPerSecond: 0,
      sweep: true,
      sweepFrom: 4,
      sweepFactor: 2,
      stepSeconds: 25,
      maxSteps: 1,
      xTier: "basic",
      out,
      blockTime: 0.45,
      readsPerSecond: 5,
      subscribers: 40,
      webhooks: 4,
      initialLaunches: 4,
      launchesPerMinute: 2,
      idleSeconds: 5,
      readFloorMs: 50,
      idleTradesPerSecond: 0.5,
      ceilingTransfers: 1000,
      seed: 7,
      apis: 2,
      workers: 2,
      outsidePostgres: true,
      timelineSeconds: 5,
      log: (line) => process.stdout.write(`${line}\n`),
    },
    "test/harness/load.test.ts",
  );
  const files = writeReport(out, r);
  process.stdout.write(`load report: ${files.html}\n`);
  expect(r.checks.problems).toEqual([]);
  expect(r.checks.ok).toBe(true);
  expect(r.checks.trades.mined).toBeGreaterThan(0);
  expect(r.checks.trades.indexedOnce).toBe(r.checks.trades.mined);
  expect(r.checks.launches.answered).toBe(r.checks.launches.asked);
  expect(r.checks.webhooks.notReceived).toBe(0);
  expect(r.totals.trades.graduated).toBeGreaterThan(0);
  expect(r.totals.trades.dex).toBeGreaterThan(0);
  expect(r.steps).toHaveLength(1);
  expect(r.steps[0]?.lagMs.n).toBeGreaterThan(0);
  expect(Object.keys(r.idle.readsMs).sort()).toEqual(
    ["agent page", "candles", "token list", "token page", "trades"].sort(),
  );
  expect(r.ceiling.chain.mined).toBe(r.ceiling.chain.sent);
  expect(r.ceiling.chain.txPerSecond).toBeGreaterThan(0);
  expect(Object.keys(r.roles)).toEqual(
    expect.arrayContaining(["api", "worker", "indexer", "postgres", "anvil"]),
  );
  expect(r.rpc.calls.eth_getLogs ?? 0).toBeGreaterThan(0);
  expect(r.rpc.price.cusPerMonth).toBeGreaterThan(0);
  expect(r.postgres.added.rows).toBeGreaterThan(0);
  expect(r.totals.ws.open).toBe(40);
  expect(r.timeline.length).toBeGreaterThanOrEqual(4);
  expect(r.timeline.some((p) => p.tradesPerSecond > 0 && p.lagP99 !== null)).toBe(true);
  expect(r.timeline.at(-1)?.cores).toHaveProperty("postgres");
  expect(r.statements.length).toBeGreaterThan(0);
});
