/** Figures over samples: percentiles, a seeded PRNG and a Zipf sampler for token popularity. */

/** The p-quantile (0..1) of `xs` by nearest rank; null for no samples. */
export function percentile(xs: readonly number[], p: number): number | null {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? null;
}

export type Summary = { n: number; p50: number | null; p99: number | null; max: number | null };

export function summary(xs: readonly number[]): Summary {
  // Sorted once, and no Math.max(...xs): a long run's samples overflow the call stack.
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted.length
      ? (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? null)
      : null;
  return {
    n: xs.length,
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    max: round(sorted.at(-1) ?? null),
  };
}

const round = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);

/** A linear congruential generator: the same seed gives the same run. */
export function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (s * 1_103_515_245 + 12_345) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Draws an index in [0, n) with P(k) proportional to 1/(k+1)^s: a few tokens take most of the
 * volume, as on four.meme. `n` may grow between draws (new launches join the tail).
 */
export function zipf(random: () => number, s = 1.1) {
  const weights: number[] = [];
  let total = 0;
  return (n: number): number => {
    while (weights.length < n) {
      const w = 1 / (weights.length + 1) ** s;
      weights.push(w);
      total += w;
    }
    let x = random() * total;
    for (let k = 0; k < weights.length; k++) {
      x -= weights[k] as number;
      if (x <= 0) return k;
    }
    return weights.length - 1;
  };
}

/** Latencies by name (a route, a channel), kept per sweep step as well as for the whole run. */
export class Latencies {
  readonly all = new Map<string, number[]>();
  add(name: string, ms: number): void {
    const xs = this.all.get(name) ?? [];
    xs.push(ms);
    this.all.set(name, xs);
  }
  summaries(): Record<string, Summary> {
    return Object.fromEntries([...this.all].map(([k, xs]) => [k, summary(xs)]));
  }
  reset(): void {
    this.all.clear();
  }
}
