import { feedItem } from "../../lib/events/feed-item.ts";
import { toLaunch } from "../deposit-launch/read-routes.ts";
import { dec, decOrNull, isoFromUnix } from "../http/format.ts";
import { toMarketTrade } from "../market/all-trades.ts";
import { toTrade } from "../market/trades.ts";
import type { Row } from "./view-tail.ts";

// The `data` of each channel's messages, built by the same functions as the REST items so the
// two can never drift apart.

/** `token.<address>` `trade`: an item of `GET /tokens/{address}/trades`. */
export const tradeItem = (row: Row) => toTrade(row as Parameters<typeof toTrade>[0]);

/** `trades` `trade`: an item of `GET /v2/trades` (a trade that names its token). */
export const marketTradeItem = (row: Row) =>
  toMarketTrade(row as Parameters<typeof toMarketTrade>[0]);

/** `factory` `launchCreated`: an item of `GET /v2/launches`. */
export const launchItem = (row: Row) => toLaunch(row as Parameters<typeof toLaunch>[0]);

/** `launch_event.kind` (as the indexer writes it) -> the message type api/AGENT.md "WebSocket" names. */
export const LAUNCH_MESSAGE_TYPES: Record<string, string> = {
  deposited: "deposited",
  withdrew: "withdrew",
  closed: "closed",
  launch_executed: "launchExecuted",
  distributed: "distributed",
  claimed: "claimed",
  refund_enabled: "refundEnabled",
  refunded: "refunded",
};

/** `launch.<id>` messages: one vault event. */
export function launchEventItem(row: Row, launchId: string) {
  return {
    launchId,
    vault: row.vault as string,
    account: (row.account as string | null) ?? null,
    amount: decOrNull(row.amount as string | null),
    totalDeposited: decOrNull(row.total_deposited as string | null),
    txHash: row.tx_hash as string,
    logIndex: Number(row.log_index),
    blockNumber: dec(row.block_number as string),
    timestamp: isoFromUnix(row.timestamp as string),
  };
}

/**
 * `dividends.<address>` `dividendClaimed`: one `FeeClaimed` of a tax token paying the address its
 * dividends, whoever sent the claim (the keeper, the holder, anyone); `GET
 * /v2/users/{address}/dividends` then answers the new figures.
 */
export function dividendClaimItem(row: Row) {
  return {
    token: row.token as string,
    account: row.account as string,
    amountBnb: dec(row.amount as string),
    txHash: row.tx_hash as string,
    logIndex: Number(row.log_index),
    blockNumber: dec(row.block_number as string),
    timestamp: isoFromUnix(row.timestamp as string),
  };
}

/** `agent.<id>` `event`: exactly an item of `GET /v2/agents/{id}/events`. */
export const agentEventItem = feedItem;
