import { expect, it } from "vitest";
import { runDbChaos } from "../helpers/chaos/db.ts";

// The short database chaos run: the stack plus a second API run by hand, under a small read
// load, while Postgres is restarted 3 times and then stopped for DB_CHAOS_OUTAGE_SECONDS
// (default 20). The long run is `npm run chaos:db -- --restarts 30 --outage-seconds 180`.

it("no role exits through Postgres restarts and an outage, and the service answers again", async () => {
  const outageSeconds = Number(process.env.DB_CHAOS_OUTAGE_SECONDS ?? 20);
  const report = await runDbChaos({
    restarts: 3,
    downMs: 1_000,
    outageSeconds,
    log: (l) => console.log(l),
  });
  console.log(JSON.stringify(report));
  expect(report.roleExits).toEqual([]);
  expect(report.secondApiAlive).toBe(true);
  expect(report.recoveryMs).toHaveLength(3);
  // Errors are summed up per cause, not logged per failed query: fewer lines than seconds.
  for (const role of ["api", "worker", "indexer", "api (second)"])
    expect(report.outageLines[role] ?? 0, role).toBeLessThan(outageSeconds);
}, 1_200_000);
