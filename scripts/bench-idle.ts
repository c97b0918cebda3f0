/**
 * `npm run bench:idle`: what a stack costs while nothing happens, as the test suite's stacks
 * mostly wait and an operator's service mostly idles. Boots one stack in test mode (the suite's
 * own helper, in a new data directory), lets it settle, then prints the CPU-seconds each process
 * spent over BENCH_IDLE_SECONDS (default 60) and the Postgres transactions a second, and the
 * boot's own CPU-seconds. The ceiling beside them, from the same run: what the machine's cores
 * give over the window. Processes are read from /proc (Linux): each by its command line, the
 * service's roles by `bin/launchpad.js <role>`, anything else (the machine's own) as "other".
 * BENCH_IDLE_ENV: JSON of further settings, e.g. `{"DEVNET_BLOCK_TIME":"0"}` for an automine
 * devnet (no block without a transaction; the indexer polls instead of being pushed heads).
 */
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import postgres from "postgres";
import { embeddedPostgresUrl } from "../lib/local/postgres/embedded.ts";
import { isolatedEnv, ROOT, startStack } from "../test/helpers/cli.ts";
import { launchEnv } from "../test/helpers/launch.ts";

const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
const SETTLE_SECONDS = 15;
const TICKS = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in hundredths of a second

/** A process's class: a role of ours, a program of the stack, or the machine's own. */
function classify(cmd: string): string {
  const role = /bin\/launchpad\.js (\S+)/.exec(cmd)?.[1];
  if (role) return role === "start" ? "supervisor" : role;
  for (const name of ["postgres", "anvil", "ponder", "state-dump"])
    if (cmd.includes(name)) return name;
  return cmd.includes(ROOT) ? "other (this clone)" : "other";
}

/** CPU ticks of every live process, keyed by pid and start time (a pid may be reused). */
function snapshot(): Map<string, { ticks: number; cls: string }> {
  const out = new Map<string, { ticks: number; cls: string }>();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(`${pid}/${f[19]}`, { ticks: Number(f[11]) + Number(f[12]), cls: classify(cmd) });
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return out;
}

/**
 * CPU-seconds per class between two snapshots; a process that ended in between is missed for
 * its last part, so the window is sampled every second and each process's last reading kept.
 */
function startCounting() {
  const seen = new Map<string, { first: number; last: number; cls: string }>();
  const read = () => {
    for (const [key, p] of snapshot()) {
      const s = seen.get(key);
      if (s) s.last = p.ticks;
      else seen.set(key, { first: p.ticks, last: p.ticks, cls: p.cls });
    }
  };
  read();
  const timer = setInterval(read, 1_000);
  return () => {
    clearInterval(timer);
    read();
    const byClass = new Map<string, number>();
    for (const s of seen.values())
      byClass.set(s.cls, (byClass.get(s.cls) ?? 0) + (s.last - s.first) / TICKS);
    return [...byClass].filter(([, v]) => v >= 0.05).sort((a, b) => b[1] - a[1]);
  };
}

const line = (rows: [string, number][]) => {
  const total = rows.filter(([k]) => k !== "other").reduce((s, [, v]) => s + v, 0);
  const parts = rows.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(", ");
  return `${total.toFixed(1)} CPU-s of the stack (${parts})`;
};

const env: Record<string, string> = launchEnv(
  await isolatedEnv(),
  JSON.parse(process.env.BENCH_IDLE_ENV ?? "{}"),
);
const bootCount = startCounting();
const t0 = performance.now();
const stack = await startStack(env);
console.log(`boot: ${((performance.now() - t0) / 1000).toFixed(1)} s, ${line(bootCount())}`);
try {
  await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000));
  const sql = postgres(embeddedPostgresUrl(env.LAUNCHPAD_DATA_DIR as string) as string, { max: 1 });
  const xacts = async () =>
    Number(
      (
        await sql<{ n: string }[]>`
          select (xact_commit + xact_rollback)::text as n from pg_stat_database
          where datname = current_database()`
      )[0]?.n,
    );
  const x0 = await xacts();
  const idleCount = startCounting();
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const rows = idleCount();
  // Postgres publishes its counters at most every PGSTAT_MIN_INTERVAL (1 s): the window is long.
  const perSecond = ((await xacts()) - x0) / IDLE_SECONDS;
  await sql.end();
  console.log(`idle ${IDLE_SECONDS} s: ${line(rows)}`);
  console.log(`postgres: ${perSecond.toFixed(1)} transactions a second`);
  const cores = availableParallelism();
  console.log(
    `ceiling: ${cores} cores give ${(cores * IDLE_SECONDS).toFixed(0)} CPU-s in ${IDLE_SECONDS} s`,
  );
} finally {
  await stack.stop();
}
