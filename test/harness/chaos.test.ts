import { expect, it } from "vitest";
import { runChaos } from "../helpers/chaos/run.ts";

// The short chaos run: the whole stack under load for CHAOS_SECONDS (default 40) while the
// worker, the indexer, the stand-ins and a second API process are SIGKILLed, the RPC is
// paused past the upstream timeout and Postgres is restarted once. The long run is `npm run chaos -- --seconds N`.

it("under load with roles killed: launches once on chain, webhooks once, index equal to the chain, no unexpected 5xx, roles back", async () => {
  const report = await runChaos({
    loadMs: Number(process.env.CHAOS_SECONDS ?? 40) * 1000,
    agents: 3,
    actionEveryMs: 3_000,
    seed: Number(process.env.CHAOS_SEED ?? 18),
    log: (l) => console.log(l),
  });
  expect(report.actions.length).toBeGreaterThanOrEqual(8);
  expect(report.actions.some((a) => a.startsWith("paused the RPC"))).toBe(true);
  expect(report.actions.some((a) => a.startsWith("restarted Postgres"))).toBe(true);
  expect(report.launches.accepted).toBe(3);
  expect(report.webhooks.accepted).toBeGreaterThan(20);
  expect(report.problems).toEqual([]);
}, 900_000);
