import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import { view } from "../../lib/db/views.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { dec } from "../http/format.ts";
import { cachedResponses } from "../http/read-cache.ts";
import { cachedRead, type ViewRouteDeps } from "../http/read-deps.ts";
import { IsoTime, Wei } from "../http/schemas.ts";
import { INDEX_NOT_READY_RETRY_SECONDS } from "../limits.ts";
import { DAY } from "./clock.ts";

const HOUR = 3_600;

import { Usd, usdString } from "./usd.ts";

const Count = z.number().int().nonnegative();

export const PlatformStats = z
  .object({
    agents: Count.openapi({ description: "Agents with a token (the `total` of `/v2/agents`)" }),
    tokens: z.object({
      launched: Count.openapi({ description: "Service tokens created on chain (either origin)" }),
      graduated: Count.openapi({
        description: "Agent tokens that left the bonding curve for the DEX pair",
      }),
    }),
    depositLaunches: z.object({
      total: Count,
      launched: Count.openapi({ description: "Launches whose token was created" }),
      raisedBnb: Wei.openapi({
        description: "BNB wei deposited into the launches that launched (their totalDeposited)",
      }),
    }),
    volume: z.object({
      bnb24h: Wei.openapi({ description: "Gross BNB wei of the trades in the rolling 24 hours" }),
      usd24h: Usd.openapi({
        description: "The same trades in USD, each at the BNB/USD answer current at it",
      }),
      bnbTotal: Wei.openapi({ description: "Gross BNB wei of every trade" }),
      usdTotal: Usd,
    }),
    indexedBlock: z
      .string()
      .regex(/^[0-9]+$/)
      .openapi({ description: "Every chain figure is as of this indexed block", example: "1234" }),
    indexedAt: IsoTime.openapi({ description: "That block's time: the 24-hour window's end" }),
  })
  .openapi("PlatformStats");

const statsRoute = createRoute({
  method: "get",
  path: "/v2/stats",
  tags: ["market"],
  summary: "Platform totals: agents, tokens, graduations, deposit launches, volume",
  description:
    "Every chain figure is read in one snapshot of the index, as of `indexedBlock`. Volume is gross BNB (curve and DEX, before fees); a trade's USD is its BNB at the BNB/USD feed answer current at it, floored per trade (a trade before any answer counts 0 USD). The 24-hour window is (indexedAt - 24 h, indexedAt].",
  responses: cachedResponses("The totals", PlatformStats),
});

type Totals = {
  agents: number;
  launched: number;
  graduated: number;
  launches: number;
  launches_done: number;
  raised: string;
  bnb24h: string;
  usd24h: string;
  bnb_total: string;
  usd_total: string;
};

/**
 * The platform totals in one repeatable-read snapshot, with the checkpoint read in it: Ponder
 * commits a block's rows with its checkpoint, so every figure is as of that one block.
 */
export async function readPlatformStats(sql: Sql, schema: string) {
  return sql.begin("isolation level repeatable read read only", async (tx) => {
    const [cp] = await tx<{ c: string }[]>`select latest_checkpoint as c
      from ${view(sql, schema, "_ponder_checkpoint")} where chain_id = 56`;
    if (!cp) return undefined;
    const block = BigInt(cp.c.slice(26, 42)).toString();
    const now = Number(cp.c.slice(0, 10));
    const since = now - DAY;
    const firstHour = since - (since % HOUR) + HOUR;
    const [t] = await tx<Totals[]>`select
      (select count(*)::int from app.agents where token_address is not null) as agents,
      (select count(*)::int from ${view(sql, schema, "token")} where created_block is not null) as launched,
      (select count(*)::int from ${view(sql, schema, "token")}
        where origin = 'registry' and status = 'graduated') as graduated,
      (select count(*)::int from ${view(sql, schema, "launch")}) as launches,
      (select count(*)::int from ${view(sql, schema, "launch")} where status = 'launched') as launches_done,
      (select coalesce(sum(total_deposited), 0)::text from ${view(sql, schema, "launch")}
        where status = 'launched') as raised,
      w.bnb24h, w.usd24h,
      (select coalesce(sum(total_volume_bnb), 0)::text from ${view(sql, schema, "token")}) as bnb_total,
      -- The 1d candles carry each trade's floored USD summed: the same figure as the trades' sum.
      (select coalesce(sum(volume_usd), 0)::text from ${view(sql, schema, "candle")}
        where interval = '1d') as usd_total
      from (select coalesce(sum(v), 0)::text as bnb24h, coalesce(sum(u), 0)::text as usd24h from (
          -- Whole hours from the 1h candles (exact per trade), only the partial first hour from
          -- trades: a read costs token-hours, not trades (as the volume24h ranking).
          select volume_bnb as v, volume_usd as u from ${view(sql, schema, "candle")}
          where interval = '1h' and bucket_start >= ${firstHour} and bucket_start <= ${now}
          union all
          select bnb_amount, div(bnb_amount * coalesce(bnb_usd, 0), 1e18) from ${view(sql, schema, "trade")}
          where timestamp > ${since} and timestamp < ${firstHour}) x) w`;
    return { totals: t as Totals, block, now };
  });
}

/** `GET /v2/stats`: platform totals, cached per indexed generation like the lists. */
export function registerStats(app: OpenAPIHono<AppEnv>, d: ViewRouteDeps) {
  const schema = d.settings.viewsSchema;
  app.openapi(statsRoute, async (c) => {
    return cachedRead(c, d.reads, async () => {
      const r = await readPlatformStats(d.sql, schema);
      // No BSC checkpoint yet: nothing to be "as of".
      if (!r) {
        throw new HttpError("unavailable", {
          message: "the chain index has no BSC block yet; retry shortly",
          headers: { "Retry-After": String(INDEX_NOT_READY_RETRY_SECONDS) },
        });
      }
      const t = r.totals;
      return {
        ok: true as const,
        data: {
          agents: t.agents,
          tokens: { launched: t.launched, graduated: t.graduated },
          depositLaunches: {
            total: t.launches,
            launched: t.launches_done,
            raisedBnb: dec(t.raised),
          },
          volume: {
            bnb24h: dec(t.bnb24h),
            usd24h: usdString(dec(t.usd24h)),
            bnbTotal: dec(t.bnb_total),
            usdTotal: usdString(dec(t.usd_total)),
          },
          indexedBlock: r.block,
          indexedAt: new Date(r.now * 1000).toISOString(),
        },
      };
    }) as never;
  });
}
