// `npm run bench:pollers -- [--minutes 5] [--warmup M] [--agents 1000] [--watched 10]
// [--x-tier basic] [--fills 5]`: the pollers of `--agents` agents (a perps account and an X handle each) against
// the venue and X stand-ins at the real services' documented limits (the venue's 1200 weight a
// minute, X's windows of the tier), for `--minutes` real minutes, with `--fills` agents trading
// every 10 s and `--watched` agents watched (app.watched_agents, where the code has it). Prints
// how old each agent's data gets after `--warmup` minutes (default: half the run) (perps state, social cache) for watched and unwatched agents,
// the 429s each stand-in sent, and the venue weight used against its limit. docs/benchmarks.md.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { startWorker } from "../jobs/worker.ts";
import { loadConfig } from "../lib/config.ts";
import { createSql } from "../lib/db/client.ts";
import { migrate } from "../lib/db/migrate.ts";
import { startEmbeddedPostgres } from "../lib/local/postgres/embedded.ts";
import type { XApiTier } from "../services/x/protocol.ts";
import { startPollerStandIns } from "../test/helpers/poller-stand-ins.ts";

const { values: flags } = parseArgs({
  options: {
    minutes: { type: "string", default: "5" },
    warmup: { type: "string" },
    agents: { type: "string", default: "1000" },
    watched: { type: "string", default: "10" },
    "x-tier": { type: "string", default: "basic" },
    fills: { type: "string", default: "5" },
  },
});
const MINUTES = Number(flags.minutes);
const AGENTS = Number(flags.agents);
const WATCHED = Number(flags.watched);
const FILLS = Number(flags.fills);
const TIER = flags["x-tier"] as XApiTier;
const SAMPLE_MS = 5_000;
/** Samples start after this: the start is everyone's first read, not the steady state. */
const WARMUP_MS = Number(flags.warmup ?? MINUTES / 2) * 60_000;
const TOKEN = "bench-app-bearer-token";

const pad = (i: number) => String(i).padStart(4, "0");
const agentId = (i: number) => `bench-${pad(i)}`;
const address = (i: number) => `0x${(i + 1).toString(16).padStart(40, "0")}`;
const handle = (i: number) => `bench_${pad(i)}`;
const isWatched = (i: number) => WATCHED > 0 && i % Math.floor(AGENTS / WATCHED) === 0;

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
}
const secs = (ms: number) => (Number.isNaN(ms) ? "-" : `${(ms / 1000).toFixed(0)} s`);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "launchpad-bench-pollers-"));
  const pg = await startEmbeddedPostgres({ dataDir: join(dir, "pg") });
  const sql = createSql(pg.url, { max: 4 });
  const s = await startPollerStandIns({ xTier: TIER, xToken: TOKEN });
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  try {
    await migrate(sql);
    console.log(`seeding ${AGENTS} agents (perps account, X handle), ${WATCHED} watched`);
    const rows = Array.from({ length: AGENTS }, (_, i) => i);
    await sql`insert into app.agents ${sql(
      rows.map((i) => ({
        agent_id: agentId(i),
        name: agentId(i),
        ticker: "BEN",
        description: "bench agent",
        image_url: "https://example.com/a.png",
      })),
    )}`;
    await sql`insert into app.agent_wallets ${sql(
      rows.map((i) => ({
        agent_id: agentId(i),
        chain: "hyperliquid",
        address: address(i),
        role: "perps",
      })),
    )}`;
    await sql`insert into app.agent_personas ${sql(
      rows.map((i) => ({ agent_id: agentId(i), name: agentId(i), handle: handle(i) })),
    )}`;
    for (const i of rows) {
      await s.venue("POST", "/deposit", { user: address(i), usdc: 1_000 });
      await s.x("PUT", "/stand-in/accounts", { username: handle(i), followers: 100 + i });
    }
    const [{ has } = { has: false }] = await sql<{ has: boolean }[]>`
      select to_regclass('app.watched_agents') is not null as has`;
    if (has) {
      const watched = rows.filter(isWatched).map((i) => ({
        agent_id: agentId(i),
        until: new Date(Date.now() + (MINUTES + 10) * 60_000),
      }));
      if (watched.length > 0) await sql`insert into app.watched_agents ${sql(watched)}`;
    }
    const env = {
      LAUNCHPAD_ENV: "test",
      LAUNCHPAD_DATA_DIR: dir,
      DATABASE_URL: pg.url,
      BSC_RPC_URL: "http://127.0.0.1:9",
      HYPERLIQUID_API_URL: s.hlUrl,
      SAFE_TX_SERVICE_URL: "http://127.0.0.1:9",
      X_OAUTH_URL: s.xUrl,
      X_API_URL: s.xUrl,
      X_CLIENT_ID: "bench-client",
      X_CLIENT_SECRET: "bench-secret",
      X_BEARER_TOKEN: TOKEN,
      X_API_TIER: TIER,
    };
    const start = Date.now();
    worker = await startWorker({
      databaseUrl: pg.url,
      log: pino({ level: "silent" }),
      config: loadConfig(env, dir),
      jobs: ["pollers"],
    });
    console.log(
      `pollers running for ${MINUTES} min (samples every 5 s after ${WARMUP_MS / 60_000} min)`,
    );
    const ages = {
      perps: { watched: [] as number[], unwatched: [] as number[] },
      social: { watched: [] as number[], unwatched: [] as number[] },
    };
    const used: number[] = [];
    let n = 0;
    while (Date.now() - start < MINUTES * 60_000) {
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
      n++;
      // Activity: a few agents trade (a fill changes the account: its fills are read).
      if (n % 2 === 0)
        for (let k = 0; k < FILLS; k++) {
          const i = Math.floor(Math.random() * AGENTS);
          await s
            .venue("POST", "/fill", { user: address(i), coin: "BTC", side: "B", sz: 0.001 })
            .catch(() => undefined);
        }
      const meter = (await s.venue("GET", `/weight?since=${Date.now()}`)) as { used: number };
      if (Date.now() - start < WARMUP_MS) continue;
      used.push(meter.used);
      const now = Date.now();
      const perps = await sql<{ agent_id: string; at: Date }[]>`
        select agent_id, polled_at as at from app.perps_accounts`;
      const social = await sql<{ agent_id: string; at: Date }[]>`
        select agent_id, cached_at as at from app.agent_social_cache`;
      for (const [kind, got] of [
        ["perps", perps],
        ["social", social],
      ] as const) {
        const at = new Map(got.map((r) => [r.agent_id, r.at.getTime()]));
        for (const i of rows) {
          const age = now - (at.get(agentId(i)) ?? start);
          ages[kind][isWatched(i) ? "watched" : "unwatched"].push(age);
        }
      }
    }
    const meter = (await s.venue("GET", `/weight?since=${Date.now()}`)) as { rateLimited: number };
    const xCounts = (await s.x("GET", "/stand-in/requests")) as Record<string, number>;
    const x429 = Object.entries(xCounts)
      .filter(([k]) => k.endsWith(":429"))
      .reduce((t, [, v]) => t + v, 0);
    console.log(
      `\n${AGENTS} agents, ${WATCHED} watched, ${MINUTES} min, X tier ${TIER}, ${FILLS} fills / 10 s`,
    );
    console.log(
      `data age (now - last refresh; never: since the start), every agent and sample after ${WARMUP_MS / 60_000} min:`,
    );
    for (const kind of ["perps", "social"] as const)
      for (const who of ["watched", "unwatched"] as const) {
        const a = ages[kind][who];
        console.log(
          `  ${kind.padEnd(6)} ${who.padEnd(9)} p50 ${secs(pct(a, 50)).padStart(6)}  p99 ${secs(pct(a, 99)).padStart(6)}  max ${secs(a.length ? a.reduce((m, v) => Math.max(m, v), 0) : Number.NaN).padStart(6)}`,
        );
      }
    console.log(`429s: venue ${meter.rateLimited}, X ${x429} (${JSON.stringify(xCounts)})`);
    console.log(
      `venue weight in the last 60 s: peak ${used.reduce((m, v) => Math.max(m, v), 0)}, mean ${Math.round(used.reduce((t, u) => t + u, 0) / Math.max(1, used.length))} (limit 1200)`,
    );
  } finally {
    await worker?.stop();
    await s.stop();
    await sql.end();
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
