import { Gauge } from "prom-client";
import { ARBITRUM_CHAIN_ID } from "../arbitrum.ts";
import type { Sql } from "../db/client.ts";
import { readFreshness } from "../indexer/lag.ts";
import { readCheckpoints } from "../indexer/status.ts";
import { registry } from "./registry.ts";

/** What the API reads its indexer status from: the views and each chain's head. */
export type IndexerSource = {
  sql: Sql;
  viewsSchema: string;
  head: (chainId: number) => Promise<bigint | undefined>;
};

let source: IndexerSource | undefined;

/** The API process's views and heads (the latest app built wins: one per process in service). */
export function setIndexerSource(s: IndexerSource) {
  source = s;
}

type Reading = { chain: string; block: number; lagBlocks?: number; lagSeconds?: number };

/** The same figures as GET /v2/indexer/status, read once per scrape for the three gauges. */
let cached: { at: number; rows: Promise<Reading[]> } | undefined;
function read(): Promise<Reading[]> {
  if (cached && Date.now() - cached.at < 1000) return cached.rows;
  const rows = source ? readSource(source) : Promise.resolve([]);
  cached = { at: Date.now(), rows };
  return rows;
}

async function readSource(s: IndexerSource): Promise<Reading[]> {
  const index = await readCheckpoints(s.sql, s.viewsSchema).catch(() => undefined);
  return Promise.all(
    (index?.chains ?? []).map(async (c) => {
      const head = await s.head(c.chainId).catch(() => undefined);
      const lagBlocks = head === undefined ? undefined : Math.max(0, Number(head - c.block));
      // The indexer role reports BSC's wall-clock lag; Arbitrum is judged by blocks alone.
      const lagSeconds =
        c.chainId === ARBITRUM_CHAIN_ID
          ? undefined
          : ((await readFreshness({ sql: s.sql, lagBlocks: lagBlocks ?? null }).catch(() => null))
              ?.lagSeconds ?? undefined);
      return { chain: c.chain, block: Number(c.block), lagBlocks, lagSeconds };
    }),
  );
}

const gauge = (name: string, help: string, pick: (r: Reading) => number | undefined) =>
  new Gauge({
    name,
    help,
    labelNames: ["chain"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await read()) {
        const v = pick(r);
        if (v !== undefined) this.set({ chain: r.chain }, v);
      }
    },
  });

gauge("launchpad_indexer_block", "The block the published views are at, per chain", (r) => r.block);
gauge(
  "launchpad_indexer_lag_blocks",
  "Blocks between the chain head (RPC) and the published views, per chain; absent when the RPC does not answer",
  (r) => r.lagBlocks,
);
gauge(
  "launchpad_indexer_lag_seconds",
  "Seconds the views are behind the chain by the wall clock (the indexer role's report, BSC)",
  (r) => r.lagSeconds,
);
