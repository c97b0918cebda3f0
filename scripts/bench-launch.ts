/**
 * `npm run bench:launch`: boots the whole service (`launchpad start`, devnet, stand-ins) in a
 * temp data dir, launches N agents through POST /v2/agents/launch (BENCH_LAUNCHES, default 10;
 * BENCH_CONCURRENCY at once, default 1) and prints p50/p99 request-to-response latency, the
 * blocks from the request to TokenCreate as an outside client counts them (the head block when
 * it sends, the block of TokenCreate), the transactions and blocks each launch took on chain,
 * and where the wall time went (job pickup, each saga step, the answer after the saga).
 * The ceiling in the same run: the devnet's block time (a launch cannot beat its blocks).
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
  // The worker prepares (provisions and funds) the wallets of registered agents before their
  // launch (jobs/launch/prepare.ts); BENCH_UNPREPARED=1 launches without waiting for it.
  const prepStart = Date.now();
  if (process.env.BENCH_UNPREPARED !== "1") {
    const prepSql = stackSql(env.LAUNCHPAD_DATA_DIR as string);
    for (;;) {
      const [row] = await prepSql<{ n: number }[]>`
        select count(*)::int as n from app.launch_wallets where status = 'ready'`;
      if ((row?.n ?? 0) >= N) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await prepSql.end();
  }
  const prepSeconds = (Date.now() - prepStart) / 1000;
  const client = createPublicClient({ transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`) });
  // When each block reached an outside client (polled every 25 ms): where in its block a
  // request arrived and whether its transactions were out before the next one.
  const minedAt = new Map<bigint, number>();
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const n = await client.getBlockNumber({ cacheTime: 0 }).catch(() => undefined);
      if (n !== undefined && !minedAt.has(n)) minedAt.set(n, Date.now());
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  const latencies: number[] = [];
  const results: {
    agentId: string;
    status: number;
    headBlock: bigint;
    askedAt: number;
    answeredAt: number;
  }[] = [];
  let next = 0;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < agents.length) {
        const a = agents[next++] as Agent;
        const ticker = `B${next}`;
        // The outside client's view of the chain when it asks (an RPC call before the request).
        const headBlock = await client.getBlockNumber({ cacheTime: 0 });
        const askedAt = Date.now();
        const start = performance.now();
        const r = await launch(stack.apiUrl, launchBody(a, sample, { ticker }), bearer(a));
        latencies.push(performance.now() - start);
        results.push({
          agentId: a.agentId,
          status: r.status,
          headBlock,
          askedAt,
          answeredAt: Date.now(),
        });
      }
    }),
  );
  const wall = (Date.now() - t0) / 1000;
  watching = false;
  await watcher;
  // Transactions per launch: every transaction a saga stored or read a receipt for.
  const sql = stackSql(env.LAUNCHPAD_DATA_DIR as string);
  const rows = await sql<
    {
      agent_id: string;
      fund: Hash | null;
      safe: Hash | null;
      identity: Hash | null;
      register: Hash | null;
      create: Hash | null;
      started_at: Date;
      finished_at: Date;
    }[]
  >`
    select agent_id, fund_tx->>'hash' as fund, safe_tx->>'hash' as safe, identity_tx as identity,
      register_tx->>'hash' as register, create_tx as create, started_at, finished_at
    from app.launch_sagas where status = 'succeeded'`;
  // Where the wall time goes: pickup (saga row to first step), each step, answer after finish.
  const steps = await sql<{ step: string; ms: number }[]>`
    select b.step, extract(epoch from (e.at - b.at)) * 1000 as ms
    from app.launch_steps b join lateral (
      select at from app.launch_steps e where e.agent_id = b.agent_id and e.attempt = b.attempt
        and e.step = b.step and e.phase <> 'begin' and e.id > b.id order by e.id limit 1) e on true
    where b.phase = 'begin'`;
  const stepEnds = await sql<{ agent_id: string; step: string; at: Date; began: Date }[]>`
    select agent_id, step, max(at) filter (where phase <> 'begin') as at,
      min(at) filter (where phase = 'begin') as began
    from app.launch_steps group by agent_id, step`;
  const pickups = await sql<{ ms: number }[]>`
    select extract(epoch from (min(st.at) - s.started_at)) * 1000 as ms
    from app.launch_sagas s join app.launch_steps st using (agent_id)
    group by s.agent_id, s.started_at`;
  await sql.end();
  const txCounts: number[] = [];
  const blockCounts: number[] = [];
  const outsideBlocks: number[] = [];
  const answerLags: number[] = [];
  const apiLags: number[] = [];
  const timelines: string[] = [];
  // The two sprints a two-block launch must win: its first transactions out before the next
  // block, and createToken out within the block after the first ones were mined.
  const firstOut: number[] = [];
  const createOut: number[] = [];
  for (const r of rows) {
    const hashes = [r.fund, r.safe, r.identity, r.register, r.create].filter(Boolean) as Hash[];
    const blocks = new Set<bigint>();
    for (const h of hashes)
      blocks.add((await client.getTransactionReceipt({ hash: h })).blockNumber);
    txCounts.push(hashes.length);
    blockCounts.push(blocks.size);
    const asked = results.find((x) => x.agentId === r.agent_id);
    if (asked && r.create) {
      const created = (await client.getTransactionReceipt({ hash: r.create })).blockNumber;
      outsideBlocks.push(Number(created - asked.headBlock));
      answerLags.push(asked.answeredAt - r.finished_at.getTime());
      apiLags.push(r.started_at.getTime() - asked.askedAt);
      timelines.push(await timeline(r, asked, created));
    }
  }
  async function timeline(
    r: (typeof rows)[number],
    asked: (typeof results)[number],
    created: bigint,
  ): Promise<string> {
    const head = minedAt.get(asked.headBlock) ?? Number.NaN;
    const row = (step: string) =>
      stepEnds.find((e) => e.agent_id === r.agent_id && e.step === step);
    const end = (step: string) => row(step)?.at.getTime() ?? Number.NaN;
    const began = (step: string) => row(step)?.began.getTime() ?? Number.NaN;
    const block = async (h: Hash | null) =>
      h ? (await client.getTransactionReceipt({ hash: h })).blockNumber - asked.headBlock : "-";
    const at = (t: number) => `+${Math.round(t - head)}`;
    const firstSent = Math.max(end("funding-sent"), end("identity-prepared"));
    firstOut.push(firstSent - asked.askedAt);
    // A wallet prepared with the launch's budget is not funded at the request: its createToken
    // races the request's own block instead.
    const funded = r.fund
      ? (await client.getTransactionReceipt({ hash: r.fund })).blockNumber
      : null;
    createOut.push(
      end("create-sent") - (funded === null ? asked.askedAt : (minedAt.get(funded) ?? Number.NaN)),
    );
    const next = (k: bigint) => at(minedAt.get(asked.headBlock + k) ?? Number.NaN);
    return [
      `${created - asked.headBlock} blocks: asked ${at(asked.askedAt)}`,
      `saga ${at(r.started_at.getTime())}, wallet ${at(began("wallet"))}`,
      `funding-sent ${at(began("funding-sent"))}..${at(end("funding-sent"))} (fund +${await block(r.fund)}, safe +${await block(r.safe)})`,
      `identity-prepared ${at(end("identity-prepared"))} (+${await block(r.identity)})`,
      `block +1 at ${next(1n)}`,
      `launchpad ${at(end("launchpad"))}`,
      `funding-mined ${at(end("funding-mined"))}`,
      `create-sent ${at(end("create-sent"))} (create +${created - asked.headBlock})`,
      `block +2 at ${next(2n)}`,
      `register-mined ${at(end("register-mined"))} (register +${await block(r.register)})`,
    ].join(", ");
  }
  const ok = results.filter((r) => r.status === 200).length;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(
    `launches        ${N} (concurrency ${CONCURRENCY}), ${ok} answered 200, ${wall.toFixed(1)} s wall`,
  );
  console.log(
    process.env.BENCH_UNPREPARED === "1"
      ? "wallets         not waited for (BENCH_UNPREPARED=1)"
      : `wallets         ${N} prepared before the requests in ${prepSeconds.toFixed(1)} s (off the launch path)`,
  );
  console.log(`latency p50     ${(pct(latencies, 50) / 1000).toFixed(2)} s`);
  console.log(`latency p99     ${(pct(latencies, 99) / 1000).toFixed(2)} s`);
  console.log(
    `tx per launch   ${mean(txCounts).toFixed(1)} (min ${Math.min(...txCounts)}, max ${Math.max(...txCounts)})`,
  );
  console.log(
    `blocks/launch   ${mean(blockCounts).toFixed(1)} distinct blocks (devnet block time ${env.DEVNET_BLOCK_TIME ?? 1} s)`,
  );
  const hist = new Map<number, number>();
  for (const b of outsideBlocks) hist.set(b, (hist.get(b) ?? 0) + 1);
  console.log(
    `request->create p50 ${pct(outsideBlocks, 50)} blocks, max ${Math.max(...outsideBlocks)} (outside count: head block at request to TokenCreate block; ${[
      ...hist,
    ]
      .sort((x, y) => x[0] - y[0])
      .map(([b, n]) => `${b}: ${n}`)
      .join(", ")})`,
  );
  console.log(
    `ceiling         ${pct(outsideBlocks, 50)} blocks at ${env.DEVNET_BLOCK_TIME ?? 1} s: a launch answers no sooner than its blocks are mined`,
  );
  const ms = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(0)} ms, mean ${mean(xs).toFixed(0)} ms`;
  console.log(`request to saga ${ms(apiLags)} (the API's checks before it stores the saga)`);
  console.log(`job pickup      ${ms(pickups.map((p) => Number(p.ms)))}`);
  const byStep = new Map<string, number[]>();
  for (const s of steps) byStep.set(s.step, [...(byStep.get(s.step) ?? []), Number(s.ms)]);
  for (const [step, xs] of byStep) console.log(`  step ${step.padEnd(15)} ${ms(xs)}`);
  console.log(`answer after saga ${ms(answerLags)}`);
  console.log(
    `first txs out   ${ms(firstOut)}, p90 ${pct(firstOut, 90).toFixed(0)} ms after the request (block time ${env.DEVNET_BLOCK_TIME ?? 1} s: the time left in the request's block)`,
  );
  console.log(
    `create out      ${ms(createOut)}, p90 ${pct(createOut, 90).toFixed(0)} ms after the funding's block, or after the request when the prepared wallet needed none (the block time is the ceiling)`,
  );
  console.log(
    "per launch: ms after the head block's arrival when asked; each step's end and the block its transactions landed in, as +ms after that same head",
  );
  for (const t of timelines.sort()) console.log(`  ${t}`);
} finally {
  await stack.stop();
  await stack.cleanup();
  rmSync(env.LAUNCHPAD_DATA_DIR as string, { recursive: true, force: true });
}
