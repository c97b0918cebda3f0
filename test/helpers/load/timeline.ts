import { roleUse, sampleRoles } from "./proc.ts";
import { percentile } from "./stats.ts";

/** One window of the run: what the charts over time draw. */
export type TimelinePoint = {
  /** Seconds since the load started, at the window's end. */
  t: number;
  tradesPerSecond: number;
  lagP99: number | null;
  readP99: number | null;
  wsP99: number | null;
  /** Cores used per role over the window. */
  cores: Record<string, number>;
};

/**
 * The run as curves over time: every `everyMs` it closes a window with the trades mined, the
 * p99 of the index lag, of every read and of the WebSocket deliveries seen in it, and the CPU
 * each role used. The collectors feed it through `lag`, `read` and `ws` beside their own
 * figures, so a step's totals and the timeline come from the same samples.
 */
export function startTimeline(p: { everyMs: number; mined: () => number; pids: () => number[] }) {
  const points: TimelinePoint[] = [];
  let lag: number[] = [];
  let reads: number[] = [];
  let ws: number[] = [];
  let started = 0;
  let timer: NodeJS.Timeout | undefined;
  let last = { at: 0, mined: 0, proc: sampleRoles([]) };
  const p99 = (xs: number[]) => {
    const v = percentile(xs, 0.99);
    return v === null ? null : Math.round(v);
  };
  const close = () => {
    const now = Date.now();
    const proc = sampleRoles(p.pids());
    const mined = p.mined();
    const seconds = Math.max(0.001, (now - last.at) / 1000);
    const cores = Object.fromEntries(
      Object.entries(roleUse(last.proc, proc)).map(([k, v]) => [k, v.cores]),
    );
    points.push({
      t: Math.round((now - started) / 1000),
      tradesPerSecond: Math.round(((mined - last.mined) / seconds) * 10) / 10,
      lagP99: p99(lag),
      readP99: p99(reads),
      wsP99: p99(ws),
      cores,
    });
    lag = [];
    reads = [];
    ws = [];
    last = { at: now, mined, proc };
  };
  return {
    lag: (ms: number) => void lag.push(ms),
    read: (ms: number) => void reads.push(ms),
    ws: (ms: number) => void ws.push(ms),
    /** Starts the windows (the load's start: the idle period is not on the curves). */
    begin: () => {
      started = Date.now();
      last = { at: started, mined: p.mined(), proc: sampleRoles(p.pids()) };
      lag = [];
      reads = [];
      ws = [];
      timer = setInterval(close, p.everyMs);
    },
    end: (): TimelinePoint[] => {
      if (timer) clearInterval(timer);
      timer = undefined;
      return points;
    },
  };
}
