import type { LagTracker } from "./lag.ts";
import { Latencies, type Summary, summary } from "./stats.ts";
import type { startTrading } from "./trades.ts";
import type { LoadOptions, Step } from "./types.ts";
import { stepVerdict } from "./verdict.ts";

type Taker = { take: () => number[] };

/**
 * Runs sweep (and steady) steps: holds a trade rate for a while, then takes that window's
 * figures and judges them against the idle yardstick; keeps every sample for the run's totals.
 */
export function stepRunner(p: {
  o: LoadOptions;
  idle: { readsMs: Record<string, Summary> };
  reads: Latencies;
  trading: ReturnType<typeof startTrading>;
  lag: LagTracker;
  ws: Taker;
  hooks: Taker;
}) {
  const { o, idle, reads, trading, lag, ws, hooks } = p;
  const allReads = new Latencies();
  const allLag: number[] = [];
  const allWs: number[] = [];
  const allHooks: number[] = [];
  const run = async (rate: number, seconds: number): Promise<Step> => {
    reads.reset();
    const minedBefore = trading.counts.mined;
    trading.setRate(rate);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const lagMs = lag.take();
    const wsMs = ws.take();
    const hookMs = hooks.take();
    // Loops, not push(...xs): a 30-minute step holds more samples than the call stack takes.
    for (const x of lagMs) allLag.push(x);
    for (const x of wsMs) allWs.push(x);
    for (const x of hookMs) allHooks.push(x);
    for (const [k, xs] of reads.all) for (const x of xs) allReads.add(k, x);
    const step: Step = {
      askedPerSecond: rate,
      tradesPerSecond: Math.round(((trading.counts.mined - minedBefore) / seconds) * 10) / 10,
      seconds,
      lagMs: summary(lagMs),
      readsMs: reads.summaries(),
      wsMs: summary(wsMs),
      webhookMs: summary(hookMs),
      pass: true,
      why: "",
    };
    step.why = stepVerdict({
      lagMs: step.lagMs,
      readsMs: step.readsMs,
      idleReadsMs: idle.readsMs,
      blockTime: o.blockTime,
      readFloorMs: o.readFloorMs,
    });
    step.pass = step.why === "";
    o.log(
      `load: step ${rate}/s asked, ${step.tradesPerSecond}/s mined, lag p99 ${step.lagMs.p99} ms, ws p99 ${step.wsMs.p99} ms, webhook p99 ${step.webhookMs.p99} ms${step.pass ? "" : ` -- ${step.why}`}`,
    );
    return step;
  };
  return { run, allReads, allLag, allWs, allHooks };
}
