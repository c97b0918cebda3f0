import type { Summary } from "./stats.ts";

/**
 * Why a sweep step is past the ceiling, or "" when it holds: the index's lag p99 over two
 * blocks, or a read route's p99 over twice its idle p99 and at least `readFloorMs` more (idle
 * p99s of 10-20 ms double with the machine's noise: measured 10.7 -> 51.5 ms at 1 trade/s on
 * an otherwise idle stack).
 */
export function stepVerdict(p: {
  lagMs: Summary;
  readsMs: Record<string, Summary>;
  idleReadsMs: Record<string, Summary>;
  blockTime: number;
  readFloorMs: number;
}): string {
  const lagLimit = 2 * p.blockTime * 1000;
  if ((p.lagMs.p99 ?? 0) > lagLimit) return `lag p99 ${p.lagMs.p99} ms > ${lagLimit} ms`;
  for (const [route, s] of Object.entries(p.readsMs)) {
    const base = p.idleReadsMs[route]?.p99 ?? Number.POSITIVE_INFINITY;
    if ((s.p99 ?? 0) > Math.max(2 * base, base + p.readFloorMs))
      return `${route} p99 ${s.p99} ms > 2x idle ${base} ms (+${p.readFloorMs} ms at least)`;
  }
  return "";
}
