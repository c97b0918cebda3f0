import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { ARBITRUM_CHAIN_ID } from "../../lib/arbitrum.ts";
import type { Sql } from "../../lib/db/client.ts";
import {
  readFreshness,
  rpcHeadBlock as readRpcHeadBlock,
  sharedHead,
} from "../../lib/indexer/lag.ts";
import { readCheckpoints } from "../../lib/indexer/status.ts";
import { INDEXER_LAG_LIMITS } from "../../lib/limits.ts";
import type { AppEnv } from "../env.ts";
import { isoFromUnix } from "../http/format.ts";
import { dataResponses, IsoTime } from "../http/schemas.ts";
import { CHAIN_LIMITS } from "../limits.ts";
import type { ApiSettings } from "../settings.ts";

const BlockNumber = z.string().regex(/^[0-9]+$/);

export const IndexerStatus = z
  .object({
    published: z.boolean().openapi({
      description: "The views exist (Ponder publishes them once the first backfill is done)",
    }),
    ready: z.boolean().openapi({ description: "Backfill done and the index is live" }),
    stale: z.boolean().openapi({
      description: `The index has been behind the chain head for more than ${INDEXER_LAG_LIMITS.staleAfterSeconds} s (wall clock), or is behind and its indexer does not report: reads serve old data`,
    }),
    chains: z.array(
      z.object({
        chainName: z.string(),
        chainId: z.number().int(),
        indexedBlock: BlockNumber,
        indexedBlockTime: IsoTime,
        headBlock: BlockNumber.nullable().openapi({
          description: "Latest block from the RPC; null when it did not answer in time",
        }),
        lag: z.number().int().nonnegative().nullable().openapi({ description: "Blocks behind" }),
        lagSeconds: z.number().nonnegative().nullable().openapi({
          description:
            "Seconds since the chain moved past the indexed block, by the wall clock (block timestamps may run ahead of it on the devnet); null before the indexer first reported",
        }),
        stale: z.boolean(),
      }),
    ),
  })
  .openapi("IndexerStatus");

const route = createRoute({
  method: "get",
  path: "/v2/indexer/status",
  tags: ["discovery"],
  summary: "How far the chain index is: indexed block, head block and lag per chain",
  responses: dataResponses("The index's progress", IndexerStatus),
});

/** A function that reads the chain's head block, or undefined if it cannot in time. */
export type HeadBlockReader = () => Promise<bigint | undefined>;

/** The head block from the configured RPC URLs (shared with the indexer role's lag tracking). */
export function rpcHeadBlock(urls: string[]) {
  return readRpcHeadBlock(urls, CHAIN_LIMITS.headTimeoutMs);
}

export type IndexerRouteDeps = { sql: Sql; settings: ApiSettings; headBlock?: HeadBlockReader };

/** `GET /v2/indexer/status`: from the views schema's `_ponder_checkpoint` and `_ponder_meta`. */
export function registerIndexer(app: OpenAPIHono<AppEnv>, d: IndexerRouteDeps) {
  const { sql } = d;
  const schema = d.settings.viewsSchema;
  // Anyone may ask: the heads are read at most once per CHAIN_LIMITS.headMaxAgeMs per process,
  // however many ask (an anonymous caller cannot turn requests into RPC calls).
  const headBlock = sharedHead(
    d.headBlock ?? rpcHeadBlock(d.settings.rpcUrls),
    CHAIN_LIMITS.headMaxAgeMs,
  );
  const arbitrumHead = d.settings.arbitrumRpcUrl
    ? sharedHead(rpcHeadBlock([d.settings.arbitrumRpcUrl]), CHAIN_LIMITS.headMaxAgeMs)
    : async () => undefined;
  app.openapi(route, async (c) => {
    const [index, head, arbHead] = await Promise.all([
      readCheckpoints(sql, schema),
      headBlock(),
      arbitrumHead(),
    ]);
    const chains = await Promise.all(
      (index?.chains ?? []).map(async (r) => {
        const second = r.chainId === ARBITRUM_CHAIN_ID;
        const h = second ? arbHead : head;
        const lag = h === undefined ? null : Math.max(0, Number(h - r.block));
        // The indexer role's wall-clock lag report is BSC's; Arbitrum is judged by blocks.
        const freshness = second
          ? {
              lagSeconds: null,
              stale: lag !== null && lag > INDEXER_LAG_LIMITS.arbitrumStaleAfterBlocks,
            }
          : await readFreshness({ sql, lagBlocks: lag });
        return {
          chainName: r.chain,
          chainId: r.chainId,
          indexedBlock: r.block.toString(),
          indexedBlockTime: isoFromUnix(String(r.time)),
          headBlock: h?.toString() ?? null,
          lag,
          lagSeconds: freshness.lagSeconds,
          stale: freshness.stale,
        };
      }),
    );
    const stale = chains.some((ch) => ch.stale);
    return c.json(
      { ok: true as const, data: { published: !!index, ready: !!index?.ready, stale, chains } },
      200,
    );
  });
}
