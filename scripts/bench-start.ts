/**
 * `npm run bench:start`: how long `npm start` takes to be healthy, as a newcomer meets it. Each
 * round runs `npm start` in a new data directory (first start: Postgres initdb, the devnet's
 * deployment, Ponder's tables) and then again in the same one (second start: everything is
 * restored), and prints the seconds to the banner and to a deep health check that answers 200
 * (every role's heartbeat, the index ready), then Ctrl-C's time to a clean exit. One deep check
 * serves every caller for `HEALTH_LIMITS.deepCacheMs` (2 s), so "healthy" may be seen up to that
 * much after it became true.
 * BENCH_ROUNDS (default 3). The floor in the same run: `node bin/launchpad.js --help`, the
 * CLI's own start-up, and an `npm start` that only prints its help (npm's overhead).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, isolatedEnv, ROOT } from "../test/helpers/cli.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Sent with the deep health polls: the operator's budget, where a poll every 200 ms fits. */
const ADMIN_TOKEN = randomBytes(24).toString("hex");
/** Between two deep health polls. */
const POLL_MS = 200;

type Start = { banner: number; healthy: number; stop: number };

/** One `npm start` in `env`'s data directory: seconds to the banner, to deep health, to exit. */
async function npmStart(env: Record<string, string>): Promise<Start> {
  const t0 = performance.now();
  const child = spawn("npm", ["start"], {
    cwd: ROOT,
    env: cleanEnv({ ...env, ADMIN_TOKEN }),
    detached: true,
  });
  let out = "";
  // BENCH_STAMP=1 prints each line with its seconds since the start: where a start's time goes.
  const stamp = (d: Buffer) => {
    out += d;
    if (process.env.BENCH_STAMP)
      for (const line of String(d).split("\n").filter(Boolean))
        process.stdout.write(
          `${(performance.now() - t0).toFixed(0).padStart(6)} ${line.slice(0, 240)}\n`,
        );
  };
  child.stdout.on("data", stamp);
  child.stderr.on("data", stamp);
  const exited = new Promise<string>((r) =>
    child.on("exit", (code, signal) => r(signal ?? `code ${code}`)),
  );
  const seconds = () => (performance.now() - t0) / 1000;
  let banner = Number.NaN;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${out}`);
    if (Number.isNaN(banner) && out.includes("launchpad is up")) banner = seconds();
    if (!Number.isNaN(banner)) {
      const ok = await fetch(`http://127.0.0.1:${env.PORT}/health?deep=true`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        signal: AbortSignal.timeout(2_000),
      })
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) break;
    }
    if (seconds() > 240) throw new Error(`npm start was not healthy in 240 s:\n${out}`);
    await new Promise((r) => setTimeout(r, Number.isNaN(banner) ? 100 : POLL_MS));
  }
  const healthy = seconds();
  const s0 = performance.now();
  process.kill(-(child.pid as number), "SIGINT");
  // npm itself dies of the SIGINT as in a terminal; the supervisor says it stopped cleanly.
  const how = await exited;
  await new Promise((r) => setTimeout(r, 200));
  if (!["code 0", "SIGINT"].includes(how) || !out.includes("[launchpad] stopped"))
    throw new Error(`npm start ended ${how} on Ctrl-C:\n${out.slice(-3000)}`);
  return { banner, healthy, stop: (performance.now() - s0) / 1000 };
}

/** Seconds a command takes to run to its end. */
async function timed(cmd: string, args: string[]): Promise<number> {
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const c = spawn(cmd, args, { cwd: ROOT, stdio: "ignore" });
    c.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}`))));
  });
  return (performance.now() - t0) / 1000;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] as number;
};
const f = (x: number) => x.toFixed(1).padStart(5);

const first: Start[] = [];
const second: Start[] = [];
const cli: number[] = [];
const npmHelp: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const env = await isolatedEnv();
  try {
    first.push(await npmStart(env));
    second.push(await npmStart(env));
  } finally {
    rmSync(env.LAUNCHPAD_DATA_DIR, { recursive: true, force: true });
  }
  cli.push(await timed(process.execPath, [join(ROOT, "bin", "launchpad.js"), "--help"]));
  npmHelp.push(await timed("npm", ["start", "--", "--help"]));
  const [a, b] = [first[i] as Start, second[i] as Start];
  process.stdout.write(
    `round ${i + 1}: first start banner ${f(a.banner)} s, healthy ${f(a.healthy)} s, Ctrl-C ${f(a.stop)} s; second start banner ${f(b.banner)} s, healthy ${f(b.healthy)} s, Ctrl-C ${f(b.stop)} s\n`,
  );
}
process.stdout.write(
  [
    `npm start, median of ${ROUNDS} (seconds):`,
    `  first start   banner ${f(median(first.map((s) => s.banner)))}  healthy ${f(median(first.map((s) => s.healthy)))}  (target: healthy under 15)`,
    `  second start  banner ${f(median(second.map((s) => s.banner)))}  healthy ${f(median(second.map((s) => s.healthy)))}  (target: healthy under 10)`,
    `  Ctrl-C to a clean exit: ${f(median([...first, ...second].map((s) => s.stop)))}`,
    `floor in the same run: the CLI's start-up ${f(median(cli))}, npm start --help ${f(median(npmHelp))}`,
    "",
  ].join("\n"),
);
