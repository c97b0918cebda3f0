import type { Address } from "viem";
import type { Latencies } from "./stats.ts";
import { zipf } from "./stats.ts";

/** The web app's read mix: the share of reads each page's request takes. */
const MIX: [string, number][] = [
  ["token list", 0.2],
  ["token page", 0.25],
  ["candles", 0.2],
  ["trades", 0.2],
  ["agent page", 0.15],
];

/**
 * Readers at `perSecond` reads a second in the web app's mix (token list, token page, candles,
 * trades, agent page), tokens drawn by the same Zipf popularity as trades (people look where
 * the volume is). Latency per route into `latencies`; any answer but 200 counts as an error.
 */
export function startReaders(p: {
  /** Reads go to each API process in turn. */
  apiUrls: string[];
  tokens: Address[];
  agentOf: (token: Address) => string | undefined;
  perSecond: number;
  latencies: Latencies;
  random: () => number;
  onLatency?: (ms: number) => void;
}) {
  const rank = zipf(p.random);
  const errors: Record<string, number> = {};
  let stopped = false;
  let inFlight = 0;
  let turn = 0;
  const path = (route: string): string => {
    const t = p.tokens[rank(p.tokens.length)] as Address;
    if (route === "token list") return "/tokens?sort=volume24h&limit=50";
    if (route === "token page") return `/tokens/${t}`;
    if (route === "candles") return `/tokens/${t}/chart?interval=1m&limit=300`;
    if (route === "trades") return `/tokens/${t}/trades?limit=50`;
    return `/v2/agents/${p.agentOf(t) ?? t}`;
  };
  const pick = () => {
    let x = p.random();
    for (const [route, share] of MIX) {
      x -= share;
      if (x <= 0) return route;
    }
    return MIX[0]?.[0] as string;
  };
  const one = async () => {
    const route = pick();
    const api = p.apiUrls[turn++ % p.apiUrls.length] as string;
    const started = performance.now();
    try {
      const res = await fetch(`${api}${path(route)}`, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      if (res.status !== 200)
        errors[`${route} ${res.status}`] = (errors[`${route} ${res.status}`] ?? 0) + 1;
      else {
        const ms = performance.now() - started;
        p.latencies.add(route, ms);
        p.onLatency?.(ms);
      }
    } catch {
      errors[`${route} net`] = (errors[`${route} net`] ?? 0) + 1;
    }
  };
  const loop = (async () => {
    let next = Date.now();
    while (!stopped) {
      next += 1000 / p.perSecond;
      if (inFlight < 200) {
        inFlight++;
        void one().finally(() => inFlight--);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 50));
  })();
  return {
    errors,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
