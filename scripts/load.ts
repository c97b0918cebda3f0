// `npm run load [-- --agents 1000 --minutes N --trades-per-second R --sweep --x-tier basic --out DIR]`
// (`--apis 2 --workers 2 --outside-postgres`: more API and worker processes on a Postgres apart)
// The load harness (test/helpers/load/): the whole stack at BSC's 0.45 s blocks under a
// production-shaped population, a sweep to the trade rate where the index or a read falls
// behind, the chain's own ceiling beside it, and a report (JSON and HTML) in --out. It runs in
// the public world of the tests (test/helpers/world/): the webhook receivers need public
// addresses, which the service requires of every receiver. Needs Linux and root, as `npm test`.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { writeReport } from "../test/helpers/load/report.ts";
import { runLoad } from "../test/helpers/load/run.ts";
import { configureWorldNamespace, makeWorldCertificates } from "../test/helpers/world/make.ts";
import { WORLD_VARIABLE } from "../test/helpers/world/world.ts";

const INSIDE = "LAUNCHPAD_LOAD_INSIDE";
const argv = process.argv.slice(2);

if (process.env[WORLD_VARIABLE]) await main();
else if (process.env[INSIDE] === "1") makeWorldAndRun();
else {
  const probe = spawnSync("unshare", ["--net", "--mount", "true"], { encoding: "utf8" });
  if (probe.status !== 0)
    throw new Error(
      `npm run load needs the public world (root, unshare): ${probe.stderr || probe.error}`,
    );
  pass("unshare", ["--net", "--mount", "--", process.execPath, import.meta.filename, ...argv], {
    [INSIDE]: "1",
  });
}

function makeWorldAndRun(): void {
  const dir = mkdtempSync(join(tmpdir(), "launchpad-world-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const hosts = configureWorldNamespace(dir);
  const files = { ...makeWorldCertificates(dir), hosts };
  const descriptor = join(dir, "world.json");
  writeFileSync(descriptor, JSON.stringify(files));
  // NODE_EXTRA_CA_CERTS is read at a process's start: the harness runs in a child that has it.
  pass(process.execPath, [import.meta.filename, ...argv], {
    [WORLD_VARIABLE]: descriptor,
    NODE_EXTRA_CA_CERTS: files.ca,
  });
}

function pass(command: string, args: string[], env: Record<string, string>): void {
  const child = spawn(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  process.on("SIGINT", () => {});
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      agents: { type: "string", default: "1000" },
      minutes: { type: "string", default: "0" },
      "trades-per-second": { type: "string", default: "5" },
      sweep: { type: "boolean", default: false },
      "sweep-from": { type: "string", default: "5" },
      "sweep-factor": { type: "string", default: "1.5" },
      "step-seconds": { type: "string", default: "60" },
      "max-steps": { type: "string", default: "12" },
      "x-tier": { type: "string", default: "basic" },
      out: {
        type: "string",
        default: `load-report-${new Date().toISOString().replace(/[:.]/g, "-")}`,
      },
      "block-time": { type: "string", default: "0.45" },
      "reads-per-second": { type: "string", default: "20" },
      subscribers: { type: "string", default: "1000" },
      webhooks: { type: "string", default: "200" },
      "initial-launches": { type: "string", default: "20" },
      "launches-per-minute": { type: "string", default: "2" },
      "idle-seconds": { type: "string", default: "30" },
      "read-floor-ms": { type: "string", default: "50" },
      "idle-trades-per-second": { type: "string", default: "0.5" },
      "ceiling-transfers": { type: "string", default: "20000" },
      seed: { type: "string", default: "1" },
      keep: { type: "boolean", default: false },
      apis: { type: "string", default: "1" },
      workers: { type: "string", default: "1" },
      "outside-postgres": { type: "boolean", default: false },
      "database-url": { type: "string" },
      "timeline-seconds": { type: "string", default: "10" },
    },
  });
  if (!values.sweep && Number(values.minutes) <= 0)
    throw new Error("nothing to run: give --sweep, --minutes N, or both");
  const started = Date.now();
  const report = await runLoad(
    {
      agents: Number(values.agents),
      minutes: Number(values.minutes),
      tradesPerSecond: Number(values["trades-per-second"]),
      sweep: values.sweep,
      sweepFrom: Number(values["sweep-from"]),
      sweepFactor: Number(values["sweep-factor"]),
      stepSeconds: Number(values["step-seconds"]),
      maxSteps: Number(values["max-steps"]),
      xTier: values["x-tier"],
      out: values.out,
      blockTime: Number(values["block-time"]),
      readsPerSecond: Number(values["reads-per-second"]),
      subscribers: Number(values.subscribers),
      webhooks: Number(values.webhooks),
      initialLaunches: Number(values["initial-launches"]),
      launchesPerMinute: Number(values["launches-per-minute"]),
      idleSeconds: Number(values["idle-seconds"]),
      readFloorMs: Number(values["read-floor-ms"]),
      idleTradesPerSecond: Number(values["idle-trades-per-second"]),
      ceilingTransfers: Number(values["ceiling-transfers"]),
      seed: Number(values.seed),
      keep: values.keep,
      apis: Number(values.apis),
      workers: Number(values.workers),
      outsidePostgres: values["outside-postgres"],
      databaseUrl: values["database-url"],
      timelineSeconds: Number(values["timeline-seconds"]),
      log: (line) => process.stdout.write(`${line}\n`),
    },
    `npm run load -- ${argv.join(" ")}`,
  );
  const files = writeReport(values.out, report);
  const c = report.ceiling;
  process.stdout.write(
    `\nceiling: ours ${c.oursTradesPerSecond ?? "-"} trades/s (${c.stoppedBecause}); the chain's ${c.chain.txPerSecond} tx/s; ratio ${c.ratio ?? "-"}\n` +
      `sustained ${report.totals.tradesPerSecond} trades/s over ${report.totals.seconds} s; lag p50/p99 ${report.totals.lagMs.p50}/${report.totals.lagMs.p99} ms\n` +
      `exactly once: ${report.checks.ok ? "yes" : `NO: ${report.checks.problems.join("; ")}`}\n` +
      `report: ${files.html} (${files.json}), ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
  process.exit(report.checks.ok ? 0 : 1);
}
