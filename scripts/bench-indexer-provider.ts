// `npm run bench:indexer -- --provider alchemy|infura [--gap 100]`: the backfill and a reindex
// through an RPC proxy that behaves like a hosted BSC provider (test/helpers/rpc-provider.ts:
// 2,000-block eth_getLogs range, 10,000 logs an answer, 25 requests/s with 429s, 50 ms a round
// trip), with the calls each made, Ponder's and the handlers' own apart, and the time the same
// work would take on a mainnet history (docs/indexer.md "On paper").
import { loadavg } from "node:os";
import type { Sql } from "postgres";
import { startPonder } from "../test/helpers/ponder.ts";
import type { ProviderProfile } from "../test/helpers/rpc-provider.ts";
import { type ProviderStats, startRpcProxy } from "../test/helpers/rpc-proxy.ts";
import { completedEvents, loggedDuration } from "./bench-indexer-probes.ts";

/** BSC: a block every 0.45 s (docs/indexer.md "On paper"). */
const BSC_BLOCKS_A_DAY = 192_000;

const total = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);
const minus = (a: ProviderStats, b: ProviderStats): ProviderStats => {
  const diff = (x: Record<string, number>, y: Record<string, number>) =>
    Object.fromEntries(Object.entries(x).map(([k, v]) => [k, v - (y[k] ?? 0)]));
  return {
    calls: {
      ponder: diff(a.calls.ponder, b.calls.ponder),
      handlers: diff(a.calls.handlers, b.calls.handlers),
    },
    logsRefused: a.logsRefused - b.logsRefused,
    rateLimited: a.rateLimited - b.rateLimited,
  };
};
const list = (calls: Record<string, number>) =>
  Object.entries(calls)
    .filter(([, n]) => n > 0)
    .map(([m, n]) => `${m} ${n}`)
    .join(", ") || "none";

/**
 * Runs the provider-profile backfill and reindex; resolves false when a run failed or the
 * index misses a trade (the exactness check).
 */
export async function providerRun(p: {
  profile: ProviderProfile;
  sql: Sql;
  databaseUrl: string;
  dataDir: string;
  devnetPort: number;
  rpcUrl: string;
  head: number;
  fromBlock: number;
  trades: number;
}): Promise<boolean> {
  const proxy = await startRpcProxy(p.rpcUrl, { profile: p.profile });
  const via = `http://127.0.0.1:${proxy.port}`;
  const pr = p.profile;
  console.log(
    `provider profile ${pr.name}: eth_getLogs ≤ ${pr.maxBlockRange} blocks and ≤ ${pr.maxLogs} logs, ${pr.requestsPerSecond} requests/s (429 over it), ${pr.latencyMs} ms a round trip; load ${loadavg()[0]?.toFixed(1)}`,
  );
  // One Ponder through the provider into `schema`, up to the head: its wall time, events,
  // Ponder's own clock and log, and the proxy's counts when it got there.
  const indexToHead = async (schema: string) => {
    const t0 = performance.now();
    const run = await startPonder({
      databaseUrl: p.databaseUrl,
      dataDir: p.dataDir,
      devnetPort: p.devnetPort,
      schema,
      viewsSchema: `${schema}_views`,
      logLevel: "info",
      rpcUrl: via,
    });
    await run.waitFor(p.head, 3_600_000);
    const seconds = (performance.now() - t0) / 1000;
    const events = await completedEvents(run.port);
    const output = run.output();
    const stats = proxy.stats();
    await run.kill();
    const ponderMs = loggedDuration(output, "Completed backfill indexing");
    return { seconds, events, output, stats, ponderMs };
  };
  let ok = true;
  try {
    const first = await indexToHead("provider");
    const { seconds: wallSec, events, ponderMs, stats: backfill } = first;
    // Ponder logs an error (level 50) for a request it gave up on; a retried one is a warning.
    const errors = first.output.split("\n").filter((l) => l.includes('"level":50')).length;

    const [row] = await p.sql<{ trades: number; blocks: number }[]>`
      select (select count(*) from provider.trade)::int as trades,
        (select count(distinct block_number) from ponder_sync.logs where chain_id = 56)::int as blocks`;
    const trades = row?.trades ?? 0;
    const eventBlocks = row?.blocks ?? 0;
    const exact = trades === p.trades;
    ok = exact && errors === 0;

    const ponderCalls = total(backfill.calls.ponder);
    const handlerCalls = total(backfill.calls.handlers);
    const calls = ponderCalls + handlerCalls;
    const blocks = p.head - p.fromBlock + 1;
    const ranges = Math.ceil(blocks / pr.maxBlockRange);
    const ponderLogs = backfill.calls.ponder.eth_getLogs ?? 0;
    const perEventBlock = {
      ponder: (ponderCalls - ponderLogs) / Math.max(1, eventBlocks),
      handlers: handlerCalls / Math.max(1, eventBlocks),
    };
    console.log(
      `backfill through ${pr.name}: ${events} events in ${wallSec.toFixed(1)} s (process start included; Ponder's clock ${(ponderMs / 1000).toFixed(1)} s) = ${Math.round(events / wallSec)} events/s`,
    );
    console.log(
      `exactness: ${trades} of ${p.trades} trades indexed${exact ? "" : " — MISSING TRADES"}; Ponder errors logged: ${errors}`,
    );
    console.log(
      `RPC calls: ${calls} (${(calls / wallSec).toFixed(1)}/s); refused: ${backfill.logsRefused} eth_getLogs over a cap, ${backfill.rateLimited} answered 429`,
    );
    console.log(`  Ponder's sync: ${ponderCalls} (${list(backfill.calls.ponder)})`);
    console.log(`  handlers' own: ${handlerCalls} (${list(backfill.calls.handlers)})`);
    console.log(
      `  over ${blocks} blocks (${ranges} ranges of ${pr.maxBlockRange}), ${eventBlocks} blocks with a service event: Ponder ${(ponderLogs / ranges).toFixed(1)} eth_getLogs a range and ${perEventBlock.ponder.toFixed(2)} other calls a block with an event; handlers ${perEventBlock.handlers.toFixed(2)} calls a block with an event (target ≤ 2: ${perEventBlock.handlers <= 2 ? "met" : "MISSED"})`,
    );
    // Mainnet: the same calls per range and per event block over a year of BSC, at the cost a
    // call had here (the provider's rate, latency and Ponder's own work together).
    const secPerCall = wallSec / calls;
    for (const perDay of [1_000, 10_000]) {
      const year = 365;
      const n =
        ((BSC_BLOCKS_A_DAY * year) / pr.maxBlockRange) * (ponderLogs / ranges) +
        perDay * year * (perEventBlock.ponder + perEventBlock.handlers);
      console.log(
        `  mainnet, a year of history with ${perDay} blocks a day holding a service event: ${Math.round(n).toLocaleString("en")} calls × ${(secPerCall * 1000).toFixed(0)} ms = ${((n * secPerCall) / 3600).toFixed(1)} h (rate-bound floor ${(n / pr.requestsPerSecond / 3600).toFixed(1)} h)`,
      );
    }

    // A reindex from Ponder's cache, through the same provider: what still reaches the node.
    const again = await indexToHead("provider_reindex");
    const { seconds: reSec, events: reEvents, ponderMs: reMs } = again;
    const re = minus(again.stats, backfill);
    const reHandlers = total(re.calls.handlers);
    console.log(
      `reindex from Ponder's cache through ${pr.name}: ${reEvents} events in ${reSec.toFixed(1)} s (Ponder's clock ${(reMs / 1000).toFixed(1)} s = ${Math.round(reEvents / (reMs / 1000))} events/s); node calls: Ponder ${total(re.calls.ponder)} (${list(re.calls.ponder)}), handlers ${reHandlers} (${list(re.calls.handlers)}) (target 0: ${reHandlers === 0 ? "met" : "MISSED"}); load ${loadavg()[0]?.toFixed(1)}`,
    );
  } finally {
    await proxy.stop();
  }
  return ok;
}
