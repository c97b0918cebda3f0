import type { Address } from "viem";
import type { LoadAgent } from "./population.ts";

export type LaunchCounts = { asked: number; answered: number; refused: Record<string, number> };

/**
 * Launches through the real REST API (`POST /v2/agents/launch`), one agent after another at
 * `perMinute`, each retried with its Idempotency-Key on a 429/5xx/no answer as a client would
 * (a launch is answered once it is on chain). The answer time is from the first ask to the 200.
 * Each new token joins `tokens` (and so the trades' and readers' tail).
 */
export function startLaunches(p: {
  /** Launch i asks API process i mod n first, the next one on each retry. */
  apiUrls: string[];
  agents: LoadAgent[];
  imageUrl: string;
  tokens: Address[];
  tokenAgent: Map<string, string>;
  perMinute: () => number;
  answerMs: number[];
}) {
  const counts: LaunchCounts = { asked: 0, answered: 0, refused: {} };
  let stopped = false;
  let next = 0;
  const inFlight = new Set<Promise<void>>();
  const launchOne = async (a: LoadAgent, i: number) => {
    counts.asked++;
    const started = Date.now();
    const body = JSON.stringify({
      agentId: a.agentId,
      name: `Load ${i}`,
      ticker: `LD${i}`,
      description: "An agent of the load harness's population.",
      imageUrl: p.imageUrl,
      chainId: 56,
    });
    for (let attempt = 0; attempt < 30; attempt++) {
      try {
        const api = p.apiUrls[(i + attempt) % p.apiUrls.length] as string;
        const r = await fetch(`${api}/v2/agents/launch`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${a.apiKey}`,
            "content-type": "application/json",
            "idempotency-key": `load-${a.agentId}`,
          },
          body,
          signal: AbortSignal.timeout(180_000),
        });
        const data = ((await r.json()) as { data?: { tokenAddress?: Address } }).data;
        if (r.status === 200 && data?.tokenAddress) {
          p.answerMs.push(Date.now() - started);
          counts.answered++;
          p.tokens.push(data.tokenAddress);
          p.tokenAgent.set(data.tokenAddress.toLowerCase(), a.agentId);
          return;
        }
        counts.refused[r.status] = (counts.refused[r.status] ?? 0) + 1;
        if (r.status < 500 && r.status !== 429 && r.status !== 409) return;
      } catch {
        counts.refused.net = (counts.refused.net ?? 0) + 1;
      }
      await new Promise((r) => setTimeout(r, 2_000));
    }
  };
  const loop = (async () => {
    while (!stopped && next < p.agents.length) {
      const rate = p.perMinute();
      if (rate <= 0) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      const i = next++;
      const run: Promise<void> = launchOne(p.agents[i] as LoadAgent, i).finally(() =>
        inFlight.delete(run),
      );
      inFlight.add(run);
      await new Promise((r) => setTimeout(r, 60_000 / rate));
    }
  })();
  return {
    counts,
    /** Launches `n` agents now, all at once, and waits for their answers (the run's set-up). */
    burst: async (n: number) => {
      const runs = [];
      for (let k = 0; k < n && next < p.agents.length; k++) {
        const i = next++;
        runs.push(launchOne(p.agents[i] as LoadAgent, i));
      }
      await Promise.all(runs);
    },
    /** Stops asking and waits for every launch asked to be answered. */
    stop: async () => {
      stopped = true;
      await loop;
      await Promise.all(inFlight);
    },
  };
}
