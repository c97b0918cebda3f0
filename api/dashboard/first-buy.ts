import { z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import { isMissingRelation, view } from "../../lib/db/views.ts";
import { TxHash, Wei } from "../http/schemas.ts";

export const AgentFirstBuy = z
  .object({
    tokenAmount: Wei.openapi({ description: "Tokens the agent's wallet bought (18 decimals)" }),
    bnbAmount: Wei.openapi({ description: "BNB paid on the curve, before the fee" }),
    fee: Wei.openapi({ description: "The curve's trading fee on it" }),
    txHash: TxHash.openapi({ description: "createToken: the buy is inside the token's creation" }),
  })
  .openapi("AgentFirstBuy", {
    description:
      "The agent's first buy at launch (four.meme's preSale), as indexed: its wallet's curve buy inside createToken. Null without one, or before the index has it.",
  });
export type AgentFirstBuyBody = z.infer<typeof AgentFirstBuy>;

/**
 * The creator's curve buy in the token's creation transaction, from the index; null without
 * one or while the views are not published.
 *
 * @example
 * const firstBuy = await readFirstBuy(sql, "onchain", token);
 */
export async function readFirstBuy(
  sql: Sql,
  schema: string,
  token: string,
): Promise<AgentFirstBuyBody | null> {
  try {
    const [r] = await sql<AgentFirstBuyBody[]>`
      select t.token_amount::text as "tokenAmount", t.bnb_amount::text as "bnbAmount",
        t.fee::text as fee, t.tx_hash as "txHash"
      from ${view(sql, schema, "token")} k join ${view(sql, schema, "trade")} t
        on t.token = k.address and t.tx_hash = k.created_tx and t.account = k.creator
      where k.address = ${token} and t.venue = 'curve' and t.side = 'buy'
      order by t.log_index limit 1`;
    return r ?? null;
  } catch (error) {
    if (isMissingRelation(error)) return null;
    throw error;
  }
}
