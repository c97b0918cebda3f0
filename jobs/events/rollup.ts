import type { NewAgentEvent } from "../../lib/events/store.ts";

// inference.spent arrives once per model call; the feed shows one row per agent and minute.
// The rolled-up row's key is (cloud, inference.spent:<agent>:<minute>): a delivery is added to
// it in the same transaction that marks its inbox row processed, so each distinct delivery
// counts exactly once (a redelivery never reaches the consumer: the inbox stored nothing).

export const ROLLUP_SOURCE = "cloud";
const SCALE = 18;

type Delivery = {
  agentId: string;
  occurredAt: Date;
  data: { provider: string; model?: string; usd: string; tokensIn?: number; tokensOut?: number };
};

/** One row per agent-minute of a batch's deliveries, ready to merge into the feed. */
export function rollUpInference(deliveries: readonly Delivery[]): NewAgentEvent[] {
  const groups = new Map<string, { agentId: string; minute: Date; parts: Delivery[] }>();
  for (const d of deliveries) {
    const minute = new Date(Math.floor(d.occurredAt.getTime() / 60_000) * 60_000);
    const key = `${d.agentId}:${minute.toISOString()}`;
    const g = groups.get(key) ?? { agentId: d.agentId, minute, parts: [] };
    g.parts.push(d);
    groups.set(key, g);
  }
  // Sorted keys: concurrent batches lock rolled-up rows in one order, so they cannot deadlock.
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, g]) => ({
      agentId: g.agentId,
      eventType: "inference.spent",
      category: "treasury",
      source: ROLLUP_SOURCE,
      sourceEventId: `inference.spent:${key}`,
      occurredAt: g.minute,
      data: {
        minute: g.minute.toISOString(),
        usd: formatScaled(g.parts.reduce((s, p) => s + parseScaled(p.data.usd), 0n)),
        tokensIn: g.parts.reduce((s, p) => s + (p.data.tokensIn ?? 0), 0),
        tokensOut: g.parts.reduce((s, p) => s + (p.data.tokensOut ?? 0), 0),
        deliveries: g.parts.length,
        // Per provider, so burn rate can price each configured provider from the roll-up.
        byProvider: sumByProvider(g.parts),
        providers: [...new Set(g.parts.map((p) => p.data.provider))].sort(),
        models: [...new Set(g.parts.flatMap((p) => (p.data.model ? [p.data.model] : [])))].sort(),
      },
    }));
}

function sumByProvider(parts: readonly Delivery[]): Record<string, string> {
  const sums = new Map<string, bigint>();
  for (const p of parts) {
    sums.set(p.data.provider, (sums.get(p.data.provider) ?? 0n) + parseScaled(p.data.usd));
  }
  return Object.fromEntries(
    [...sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, formatScaled(v)]),
  );
}

/** "1.25" -> 1.25e18 as a bigint: sums of USD strings stay exact. */
export function parseScaled(v: string): bigint {
  const [whole = "0", frac = ""] = v.split(".");
  return BigInt(whole) * 10n ** BigInt(SCALE) + BigInt(frac.padEnd(SCALE, "0").slice(0, SCALE));
}

export function formatScaled(v: bigint): string {
  const whole = v / 10n ** BigInt(SCALE);
  const frac = (v % 10n ** BigInt(SCALE)).toString().padStart(SCALE, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : whole.toString();
}
