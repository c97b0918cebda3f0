import { readFileSync } from "node:fs";

/** One row of the soak's table. */
export type SoakSample = {
  minute: number;
  block: number | null;
  stateBytes: number;
  /** Memory (PSS) in KiB per process kind (anvil, postgres, api, worker, indexer, ponder, …). */
  rssKb: Record<string, number>;
  lagP99: number | null;
  readP99Ms: number | null;
  trades: number;
};

/**
 * Memory of a process in KiB: its proportional set size (shared pages split between the
 * processes that map them, so Postgres' shared buffers count once), else its RSS; 0 when gone.
 */
export function rssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    if (m) return Number(m[1]);
  } catch {}
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** The `q` quantile (0..1) of `xs` (nearest rank). */
export function percentile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

/** Least-squares slope of y over x, or null with fewer than two points. */
export function fitSlope(points: [number, number][]): number | null {
  if (points.length < 2) return null;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  if (sxx === 0) return null;
  return points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx;
}

const ROLES = ["anvil", "postgres", "supervisor", "api", "worker", "indexer", "ponder"];

/** Markdown table rows of `samples` (memory in MB), with the header when asked. */
export function soakTable(samples: SoakSample[], header: boolean): string {
  const cols = [
    "min",
    "block",
    "state MB",
    ...ROLES.map((r) => `${r} MB`),
    "lag p99",
    "read p99 ms",
    "trades",
  ];
  const rows = samples.map((s) =>
    [
      s.minute.toFixed(1),
      s.block ?? "-",
      (s.stateBytes / 1e6).toFixed(2),
      ...ROLES.map((r) => (s.rssKb[r] === undefined ? "-" : (s.rssKb[r] / 1024).toFixed(0))),
      s.lagP99 ?? "-",
      s.readP99Ms === null ? "-" : s.readP99Ms.toFixed(0),
      s.trades,
    ].join(" | "),
  );
  const lines = rows.map((r) => `| ${r} |`);
  if (header) lines.unshift(`| ${cols.join(" | ")} |`, `|${cols.map(() => "---").join("|")}|`);
  return lines.join("\n");
}
