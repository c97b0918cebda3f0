/**
 * `npm run bench:launch`: boots the whole service (`launchpad start`, devnet, stand-ins) in a
 * temp data dir, launches N agents through POST /v2/agents/launch (BENCH_LAUNCHES, default 10;
 * BENCH_CONCURRENCY at once, default 1) and prints p50/p99 request-to-response latency and the
 * transactions and blocks each launch took on chain.
 */
import { rmSync } from "node:fs";
import { createPublicClient, type Hash, http } from "viem";
import { isolatedEnv, runCli, startStack } from "../test/helpers/cli.ts";
import {
  type Agent,
  bearer,
  createAgentCli,
  launch,
  launchBody,
  launchEnv,
  stackSql,
} from "../test/helpers/launch.ts";

const N = Number(process.env.BENCH_LAUNCHES ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const base = await isolatedEnv();
// Production-like: no per-test shortcuts beyond trusting XFF for distinct client IPs.
const env = launchEnv(base, { LAUNCHPAD_ENV: "development" });
const stack = await startStack(env);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};
try {
  const sample = JSON.parse(
    (await runCli(["devnet", "info", "--json"], env)).stdout,
  ).sampleImageUrl;
  const agents: Agent[] = [];
  for (let i = 0; i < N; i++) agents.push(await createAgentCli(env, `bench-${i}`));
  const latencies: number[] = [];
  const results: { agentId: string; status: number }[] = [];
  let next = 0;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < agents.length) {
        const a = agents[next++] as Agent;
        const start = performance.now();
        const r = await launch(
          stack.apiUrl,
          launchBody(a, sample, { ticker: `B${next}` }),
          bearer(a),
        );
        latencies.push(performance.now() - start);
        results.push({ agentId: a.agentId, status: r.status });
      }
    }),
  );
  const wall = (Date.now() - t0) / 1000;
  // Transactions per launch: every transaction a saga stored or read a receipt for.
  const sql = stackSql(env.LAUNCHPAD_DATA_DIR as string);
  const rows = await sql<
    {
      fund: Hash | null;
      safe: Hash | null;
      identity: Hash | null;
      register: Hash | null;
      create: Hash | null;
    }[]
  >`
    select fund_tx->>'hash' as fund, safe_tx->>'hash' as safe, identity_tx as identity,
      register_tx->>'hash' as register, create_tx as create from app.launch_sagas where status = 'succeeded'`;
  await sql.end();
  const client = createPublicClient({ transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`) });
  const txCounts: number[] = [];
  const blockCounts: number[] = [];
  for (const r of rows) {
    const hashes = Object.values(r).filter(Boolean) as Hash[];
    const blocks = new Set<bigint>();
    for (const h of hashes)
      blocks.add((await client.getTransactionReceipt({ hash: h })).blockNumber);
    txCounts.push(hashes.length);
    blockCounts.push(blocks.size);
  }
  const ok = results.filter((r) => r.status === 200).length;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(
    `launches        ${N} (concurrency ${CONCURRENCY}), ${ok} answered 200, ${wall.toFixed(1)} s wall`,
  );
  console.log(`latency p50     ${(pct(latencies, 50) / 1000).toFixed(2)} s`);
  console.log(`latency p99     ${(pct(latencies, 99) / 1000).toFixed(2)} s`);
  console.log(
    `tx per launch   ${mean(txCounts).toFixed(1)} (min ${Math.min(...txCounts)}, max ${Math.max(...txCounts)})`,
  );
  console.log(
    `blocks/launch   ${mean(blockCounts).toFixed(1)} distinct blocks (devnet block time ${env.DEVNET_BLOCK_TIME ?? 1} s)`,
  );
} finally {
  await stack.stop();
  await stack.cleanup();
  rmSync(env.LAUNCHPAD_DATA_DIR as string, { recursive: true, force: true });
}
