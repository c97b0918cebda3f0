/**
 * The index's lag by the wall clock: when each block was first seen at the chain's head, and
 * when the indexer's checkpoint (what `/v2/indexer/status` serves, read from the database so
 * the polls cost the stack no RPC call) first stood at or past it. Both are polled every
 * `everyMs`, so a figure is exact to about one poll.
 */
export function startLagTracker(p: {
  rpcUrl: string;
  checkpoint: () => Promise<number | undefined>;
  everyMs?: number;
  onSample?: (ms: number) => void;
}) {
  const every = p.everyMs ?? 100;
  const seenAt = new Map<number, number>();
  let indexed = -1;
  let head = -1;
  let stopped = false;
  /** Milliseconds from a block's first sight at the head to the index's, per block. */
  let samples: number[] = [];
  const headLoop = async () => {
    while (!stopped) {
      try {
        const r = await fetch(p.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber" }),
          signal: AbortSignal.timeout(5_000),
        });
        const n = Number(((await r.json()) as { result: string }).result);
        const now = Date.now();
        for (let b = head < 0 ? n : head + 1; b <= n; b++) if (!seenAt.has(b)) seenAt.set(b, now);
        head = Math.max(head, n);
      } catch {}
      await new Promise((r) => setTimeout(r, every));
    }
  };
  const indexLoop = async () => {
    while (!stopped) {
      try {
        const block = await p.checkpoint();
        if (block !== undefined) {
          const now = Date.now();
          if (indexed >= 0)
            for (let b = indexed + 1; b <= block; b++) {
              const at = seenAt.get(b);
              if (at === undefined) continue;
              samples.push(now - at);
              p.onSample?.(now - at);
            }
          indexed = Math.max(indexed, block);
        }
      } catch {}
      await new Promise((r) => setTimeout(r, every));
    }
  };
  const loops = Promise.all([headLoop(), indexLoop()]);
  return {
    /** The samples since the last take, and a fresh window. */
    take: (): number[] => {
      const out = samples;
      samples = [];
      return out;
    },
    head: () => head,
    /** When block `n` was first seen at the head (ms), if it was. */
    seenAt: (n: number) => seenAt.get(n),
    indexed: () => indexed,
    stop: async () => {
      stopped = true;
      await loops;
    },
  };
}

export type LagTracker = ReturnType<typeof startLagTracker>;
