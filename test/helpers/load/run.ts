import { rmSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { type Address, parseEther } from "viem";
import { readDeploymentRecord } from "../../../devnet/record.ts";
import { depositLaunches } from "../../../devnet/storyline/deposits.ts";
import { storyWorld } from "../../../devnet/storyline/world.ts";
import { createSql } from "../../../lib/db/client.ts";
import { readCheckpoints } from "../../../lib/indexer/status.ts";
import { embeddedPostgresUrl } from "../../../lib/local/postgres/embedded.ts";
import { isolatedEnv, runCli, type Stack, startStack } from "../cli.ts";
import { launchEnv } from "../launch.ts";
import { type RpcProxy, startRpcProxy } from "../rpc-proxy.ts";
import { measureChainCeiling } from "./ceiling.ts";
import { exactlyOnce, tableSizes } from "./checks.ts";
import { startExtraRoles } from "./extra-roles.ts";
import { startLagTracker } from "./lag.ts";
import { startLaunches } from "./launches.ts";
import { type StatementTime, startOutsidePostgres } from "./outside-postgres.ts";
import { seedPopulation } from "./population.ts";
import { roleUse, sampleRoles } from "./proc.ts";
import { startReaders } from "./readers.ts";
import { scaleToDay } from "./scale.ts";
import { settle } from "./settle.ts";
import { startSubscribers } from "./sockets.ts";
import { Latencies, prng, summary } from "./stats.ts";
import { stepRunner } from "./step.ts";
import { startTimeline } from "./timeline.ts";
import { startTrading } from "./trades.ts";
import type { LoadOptions, LoadReport, Step } from "./types.ts";
import { startWebhooks } from "./webhooks.ts";

/**
 * The load harness: boots the whole stack (`launchpad start`: every role its own process, one
 * Postgres) at `blockTime`, measures the chain's own ceiling beside it, seeds the population,
 * puts the clients on (readers, WebSocket subscribers, webhook receivers, launches) and raises
 * the trade rate (sweep) or holds it (steady), then checks that nothing was lost or doubled.
 */
export async function runLoad(o: LoadOptions, command: string): Promise<LoadReport> {
  const startedAt = new Date().toISOString();
  const random = prng(o.seed);
  const base = await isolatedEnv();
  const anvilUrl = `http://127.0.0.1:${base.DEVNET_PORT}`;
  // The roles reach anvil through the counting proxy; the harness's own calls go straight.
  const proxy: RpcProxy = await startRpcProxy(anvilUrl);
  const env = launchEnv(base, {
    DEVNET_BLOCK_TIME: String(o.blockTime),
    LAUNCHPAD_TEST_DEVNET_RPC_URL: `http://127.0.0.1:${proxy.port}`,
    LOG_LEVEL: "warn",
    // The readers come from one address, far past the anonymous budget (as in the soak).
    RATE_LIMIT_PER_MINUTE: "0",
    X_API_TIER: o.xTier,
  });
  const dataDir = env.LAUNCHPAD_DATA_DIR as string;
  let stack: Stack | undefined;
  const stops: (() => Promise<unknown> | unknown)[] = [];
  let outside: Awaited<ReturnType<typeof startOutsidePostgres>> | undefined;
  try {
    // An outside Postgres: one the stack does not start, given as DATABASE_URL (an operator's
    // own with --database-url, or one the harness starts apart from the stack).
    if (o.databaseUrl) env.DATABASE_URL = o.databaseUrl;
    else if (o.outsidePostgres) {
      outside = await startOutsidePostgres({ keep: o.keep });
      env.DATABASE_URL = outside.url;
    }
    o.log(`load: booting the stack at ${o.blockTime} s blocks (data dir ${dataDir})`);
    stack = await startStack(env);
    const api = stack.apiUrl;
    const extra = await startExtraRoles({ env, apis: o.apis - 1, workers: o.workers - 1 });
    stops.push(() => extra.stop());
    const apiUrls = [api, ...extra.apiUrls];
    const pids = () => [
      ...(stack?.tree() ?? []),
      ...extra.pids(),
      ...(outside?.pids() ?? []),
      process.pid,
    ];
    const info = JSON.parse((await runCli(["devnet", "info", "--json"], env)).stdout) as {
      sampleImageUrl: string;
    };
    const record = readDeploymentRecord(dataDir);
    if (!record) throw new Error("no deployment record");
    const sql = createSql(env.DATABASE_URL ?? (embeddedPostgresUrl(dataDir) as string), {
      max: 3,
      appName: "launchpad-load",
    });
    stops.push(() => sql.end({ timeout: 5 }));

    o.log("load: the chain's own ceiling (a throwaway anvil, nothing indexing)");
    const chain = await measureChainCeiling({ blockTime: o.blockTime, count: o.ceilingTransfers });
    o.log(
      `load: chain ceiling ${chain.txPerSecond} tx/s (${chain.mined}/${chain.sent} mined, at most ${chain.maxPerBlock} a block)`,
    );

    const agents = await seedPopulation({
      sql,
      count: o.agents,
      seed: o.seed,
      xUrl: `http://127.0.0.1:${env.X_PORT}`,
      log: o.log,
    });
    const tokens: Address[] = [];
    const tokenAgent = new Map<string, string>();
    const launchMs: number[] = [];
    let launchRate = 0;
    const launches = startLaunches({
      apiUrls,
      agents,
      imageUrl: info.sampleImageUrl,
      tokens,
      tokenAgent,
      perMinute: () => launchRate,
      answerMs: launchMs,
    });
    await launches.burst(o.initialLaunches);
    if (tokens.length === 0)
      throw new Error(`no launch answered: ${JSON.stringify(launches.counts)}`);
    o.log(`load: ${tokens.length} tokens launched through the API`);

    const world = storyWorld({ rpcUrl: anvilUrl, record, seed: o.seed, pollingInterval: 100 });
    const traders = Array.from({ length: 48 }, (_, i) => world.account(`load-trader${i}`));
    for (const t of traders)
      await world.test.setBalance({ address: t.address, value: parseEther("1000000") });
    // `trading` is made below; the timeline reads it only once the load begins.
    const timeline = startTimeline({
      everyMs: o.timelineSeconds * 1000,
      mined: () => trading.counts.mined,
      pids,
    });
    const lag = startLagTracker({
      rpcUrl: anvilUrl,
      onSample: timeline.lag,
      checkpoint: async () => {
        const c = await readCheckpoints(sql, "onchain").catch(() => undefined);
        const bsc = c?.chains.find((x) => x.chainId === 56);
        return bsc === undefined ? undefined : Number(bsc.block);
      },
    });
    stops.push(() => lag.stop());
    const trading = startTrading({ world, traders, tokens, random });
    const blockOf = (tx: string) =>
      trading.mined.get(tx as `0x${string}`) ??
      trading.mined.get(tx.toLowerCase() as `0x${string}`);
    const ws = await startSubscribers({
      wsUrls: apiUrls.map((u) => `${u.replace(/^http/, "ws")}/ws`),
      onDelay: timeline.ws,
      tokens,
      count: o.subscribers,
      random,
      blockOf,
      seenAt: lag.seenAt,
    });
    stops.push(() => ws.close());
    const hooks = await startWebhooks({
      apiUrl: api,
      agents,
      count: o.webhooks,
      blockOf,
      seenAt: lag.seenAt,
    });
    stops.push(() => hooks.close());
    const reads = new Latencies();
    const readers = startReaders({
      apiUrls,
      onLatency: timeline.read,
      tokens,
      agentOf: (t) => tokenAgent.get(t.toLowerCase()),
      perSecond: o.readsPerSecond,
      latencies: reads,
      random,
    });
    o.log(
      `load: ${ws.stats().open} sockets open, ${hooks.subscriptions.length} webhook subscriptions, readers at ${o.readsPerSecond}/s`,
    );

    // Idle: the clients on and a quiet market (`idleTradesPerSecond`). Each read route's p99
    // here is the sweep's yardstick. Not zero trades: with none, every read is a cache hit
    // (the caches follow the index), and the first trade doubles every p99 whatever the load.
    trading.setRate(o.idleTradesPerSecond);
    await sleep(o.idleSeconds * 1000);
    trading.setRate(0);
    const idle = { readsMs: reads.summaries() };
    lag.take();
    ws.take();
    hooks.take();

    const sizesBefore = await tableSizes(sql);
    const callsBefore = proxy.counts();
    const procBefore = sampleRoles(pids());
    await outside?.reset();
    timeline.begin();
    const loadStarted = Date.now();
    launchRate = o.launchesPerMinute;
    const stepper = stepRunner({ o, idle, reads, trading, lag, ws, hooks });
    const { allReads, allLag, allWs, allHooks } = stepper;
    const runStep = stepper.run;

    // Deposit launches with their depositors, once at the start of the load (the story moves
    // the chain's clock past their close: 10 minutes ahead of the wall clock for good).
    let depositLaunchCount = 0;
    const deposits = depositLaunches(world, {
      creator: world.account("load-creator"),
      depositors: [0, 1, 2, 3].map((i) => world.account(`load-depositor${i}`)),
      parallel: true,
    }).then(
      () => (depositLaunchCount += 2),
      (e: unknown) => o.log(`load: deposit launches failed: ${String(e)}`),
    );
    for (const a of [
      "load-creator",
      "load-depositor0",
      "load-depositor1",
      "load-depositor2",
      "load-depositor3",
    ])
      await world.test.setBalance({ address: world.account(a).address, value: parseEther("1000") });

    // The most traded token graduates at the start: its share of the trades are DEX swaps.
    const whale = world.account("load-whale");
    await world.test.setBalance({ address: whale.address, value: parseEther("1000000") });
    await trading
      .graduate(tokens[0] as Address, whale)
      .catch((e: unknown) => o.log(`load: graduation failed: ${String(e)}`));

    const steps: Step[] = [];
    let ours: number | null = null;
    let stoppedBecause = "no sweep";
    if (o.sweep) {
      stoppedBecause = `${o.maxSteps} steps, no limit reached`;
      for (
        let k = 0, rate = o.sweepFrom;
        k < o.maxSteps;
        k++, rate = Math.ceil(rate * o.sweepFactor)
      ) {
        const step = await runStep(rate, o.stepSeconds);
        steps.push(step);
        if (!step.pass) {
          stoppedBecause = step.why;
          break;
        }
        ours = step.tradesPerSecond;
      }
    }
    if (o.minutes > 0) steps.push(await runStep(o.tradesPerSecond, o.minutes * 60));
    trading.setRate(0);
    launchRate = 0;
    const loadSeconds = (Date.now() - loadStarted) / 1000;
    const procAfter = sampleRoles(pids());
    const timelinePoints = timeline.end();
    const statements: StatementTime[] = (await outside?.top()) ?? [];
    const callsAfter = proxy.counts();
    await trading.stop();
    await launches.stop();
    await deposits;
    o.log("load: settling (index at the head, deliveries done)");
    await settle({ sql, lag, subscriptions: hooks.subscriptions, log: o.log });
    const sizesAfter = await tableSizes(sql);
    const checks = await exactlyOnce({
      sql,
      viewsSchema: "onchain",
      mined: [...trading.mined.keys()],
      launches: { ...launches.counts, tokens: [...tokens] },
      subscriptions: hooks.subscriptions,
      receipts: hooks.receipts,
    });
    const pollers = await fetch(`${api}/v2/pollers/status`).then(
      (r) => r.json(),
      () => null,
    );
    await readers.stop();

    const scaled = scaleToDay({
      seconds: loadSeconds,
      sizesBefore,
      sizesAfter,
      callsBefore,
      callsAfter,
    });
    const lagLimitMs = 2 * o.blockTime * 1000;
    const { log: _log, ...options } = o;
    return {
      startedAt,
      command,
      machine: `${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${Math.round(totalmem() / 2 ** 30)} GB`,
      options,
      idle,
      steps,
      ceiling: {
        oursTradesPerSecond: ours,
        stoppedBecause,
        lagLimitMs,
        chain,
        ratio: ours === null ? null : Number((ours / chain.txPerSecond).toPrecision(3)),
      },
      totals: {
        seconds: Math.round(loadSeconds),
        tradesPerSecond: Math.round((trading.counts.mined / loadSeconds) * 10) / 10,
        trades: { ...trading.counts },
        lagMs: summary(allLag),
        readsMs: allReads.summaries(),
        readErrors: readers.errors,
        wsMs: summary(allWs),
        ws: ws.stats(),
        webhookMs: summary(allHooks),
        launchMs: summary(launchMs),
        launches: launches.counts,
        depositLaunches: depositLaunchCount,
      },
      roles: roleUse(procBefore, procAfter),
      timeline: timelinePoints,
      statements,
      ...scaled,
      pollers,
      checks,
    };
  } finally {
    for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => undefined);
    if (stack) {
      await stack.stop("SIGINT").catch(() => undefined);
      await stack.cleanup();
    }
    await proxy.stop();
    await outside?.stop().catch(() => undefined);
    if (!o.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
