import { parseArgs } from "node:util";
import { runDbChaos } from "../test/helpers/chaos/db.ts";

// `npm run chaos:db -- [--restarts N] [--down-ms MS] [--outage-seconds S]`: the stack plus a
// second API run by hand, under a small read load, while Postgres is restarted N times and then
// stopped for S seconds. Prints the figures; exit 1 if a role exited or the service did not
// come back (the run throws then).

const { values } = parseArgs({
  options: {
    restarts: { type: "string", default: "30" },
    "down-ms": { type: "string", default: "1000" },
    "outage-seconds": { type: "string", default: "180" },
  },
});
const started = Date.now();
const report = await runDbChaos({
  restarts: Number(values.restarts),
  downMs: Number(values["down-ms"]),
  outageSeconds: Number(values["outage-seconds"]),
  log: (l) => console.log(l),
});
const sorted = [...report.recoveryMs].sort((a, b) => a - b);
const pct = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const seconds = Number(values["outage-seconds"]);
console.log(
  `restarts:              ${report.recoveryMs.length} (down ${values["down-ms"]} ms each)`,
);
console.log(
  `back after a restart:  median ${pct(0.5)} ms, max ${sorted.at(-1)} ms (both APIs reach the database)`,
);
console.log(
  `outage:                ${seconds} s; deep health green ${report.outageRecoveryMs} ms after Postgres is back`,
);
console.log(
  `role exits:            ${report.roleExits.length}${report.roleExits.map((l) => `\n  ${l}`).join("")}`,
);
console.log(`second API (by hand):  ${report.secondApiAlive ? "alive, never restarted" : "DEAD"}`);
console.log(`ponder restarted by the indexer role: ${report.ponderRestarts}`);
console.log(
  `lines during the outage: ${Object.entries(report.outageLines)
    .map(([r, n]) => `${r} ${n} (${(n / seconds).toFixed(2)}/s)`)
    .join(", ")}`,
);
console.log(
  `first lines during the outage:\n${report.outageSample.map((l) => `  ${l}`).join("\n")}`,
);
console.log(
  `read load:             ${JSON.stringify(report.load.byStatus)}, unexpected 5xx ${report.load.unexpected5xx.length}`,
);
console.log(`done in ${Math.round((Date.now() - started) / 1000)} s`);
process.exitCode = report.roleExits.length === 0 && report.secondApiAlive ? 0 : 1;
