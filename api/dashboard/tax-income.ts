import { z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import { isMissingRelation, view } from "../../lib/db/views.ts";
import { Wei } from "../http/schemas.ts";

/** The rolling window of the 24-hour figures, as the market's (api/market/clock.ts). */
const DAY = 86_400;

export const TaxIncome = z
  .object({
    lifetimeBnb: Wei.openapi({ description: "Every `tax.income` to the agent's wallets, BNB wei" }),
    last24hBnb: Wei.openapi({
      description: "Those in the rolling 24 hours ending at indexedAt (chain time)",
    }),
    count: z.number().int().nonnegative(),
    indexedBlock: z.string().regex(/^[0-9]+$/),
    indexedAt: z.iso.datetime(),
  })
  .openapi("TaxIncome", {
    description:
      "Tax income (the `tax.income` events): the token tax the treasury Safe received (FeeDispatched) and the holder share claims (FeeClaimed) to the agent's treasury Safe or steward wallet, from every service token. Null before the index is published.",
  });

/**
 * Tax income totals of the wallets `wallets` (lowercase), read in one snapshot with the
 * checkpoint they are as of; undefined while the views are not published.
 *
 * @example
 * const t = await readTaxIncome(sql, "onchain", [treasury, wallet]);
 */
export async function readTaxIncome(sql: Sql, schema: string, wallets: string[]) {
  try {
    return await sql.begin("isolation level repeatable read read only", async (tx) => {
      const [cp] = await tx<{ c: string }[]>`select latest_checkpoint as c
        from ${view(sql, schema, "_ponder_checkpoint")} where chain_id = 56`;
      if (!cp) return undefined;
      const now = Number(cp.c.slice(0, 10));
      // wallet_activity (wallet, block_number): a few rows per wallet.
      const [r] = await tx<{ all: string; day: string; n: number }[]>`select
          coalesce(sum(amount), 0)::text as all,
          coalesce(sum(amount) filter (where timestamp > ${now - DAY}), 0)::text as day,
          count(*)::int as n
        from ${view(sql, schema, "wallet_activity")}
        where wallet in ${sql(wallets.length ? wallets : ["0x"])} and kind = 'tax_income'
          and timestamp <= ${now}`;
      return {
        lifetimeBnb: r?.all ?? "0",
        last24hBnb: r?.day ?? "0",
        count: r?.n ?? 0,
        indexedBlock: BigInt(cp.c.slice(26, 42)).toString(),
        indexedAt: new Date(now * 1000).toISOString(),
      };
    });
  } catch (error) {
    if (isMissingRelation(error)) return undefined;
    throw error;
  }
}
