import { bnb, escapeHtml as e, priceBnb, relativeTime, shortAddress, tokens } from "./format.ts";

// Rows of the live lists (trades tape, activity feed, launch events), rendered to HTML strings
// by the server for the first paint and by the browser for each live message, so the two are
// the same markup. Every value passes through escapeHtml.

/** A trade as the API gives it (`GET /tokens/{a}/trades`, the `token` channel). */
export type TradeItem = {
  txHash: string;
  logIndex: number;
  timestamp: string;
  venue: string;
  side: "buy" | "sell";
  account: string;
  tokenAmount: string;
  bnbAmount: string;
  price: string;
  valueUsd: string | null;
};

/** A trade of any token (`GET /v2/trades`, the `trades` channel). */
export type MarketTradeItem = TradeItem & { token: string };

/** One `<li>` of the home page's trade ticker: "$TICK got a 0.4 BNB buy, 3 min ago". */
export function tickerRow(t: MarketTradeItem, symbol: string | undefined): string {
  const name = symbol ? `$${symbol}` : shortAddress(t.token);
  return `<li class="tick ${e(t.side)}" data-key="${e(`${t.txHash}:${t.logIndex}`)}">
<a href="/agent/${e(t.token)}">${e(name)}</a> got a
<strong title="${e(t.bnbAmount)} wei${t.valueUsd ? ` = $${e(t.valueUsd)}` : ""}">${e(bnb(t.bnbAmount))}</strong>
<span class="side">${e(t.side)}</span>, ${time(t.timestamp)}</li>`;
}

/** A feed item (`GET /v2/agents/{t}/events`, the `agent` channel). */
export type FeedItem = {
  id: string;
  eventType: string;
  category: string;
  occurredAt: string;
  text: string;
  source: string;
  sourceEventId: string;
};

/** A vault event (the `launch` channel). */
export type LaunchEventItem = {
  type: string;
  account: string | null;
  amount: string | null;
  totalDeposited: string | null;
  txHash: string;
  logIndex: number;
  timestamp: string;
};

const time = (iso: string) =>
  `<time datetime="${e(iso)}" title="${e(iso)}" data-relative>${e(relativeTime(iso))}</time>`;

/** One `<tr>` of the trades tape. */
export function tradeRow(t: TradeItem): string {
  return `<tr class="trade ${t.side}" data-key="${e(`${t.txHash}:${t.logIndex}`)}">
<td>${time(t.timestamp)}</td>
<td class="side">${e(t.side)}</td>
<td class="num" title="${e(t.price)} wei per token">${e(priceBnb(t.price))}</td>
<td class="num" title="${e(t.bnbAmount)} wei${t.valueUsd ? ` = $${e(t.valueUsd)}` : ""}">${e(bnb(t.bnbAmount))}</td>
<td class="num hide-narrow" title="${e(t.tokenAmount)}">${e(tokens(t.tokenAmount))}</td>
<td class="hide-narrow"><span class="mono" title="${e(t.account)}">${e(shortAddress(t.account))}</span></td>
</tr>`;
}

/** One `<li>` of the activity feed. */
export function feedRow(f: FeedItem): string {
  return `<li class="event" data-key="${e(f.id)}" data-category="${e(f.category)}" data-source-event-id="${e(f.sourceEventId)}">
<span class="badge cat-${e(f.category)}">${e(f.category)}</span>
<span class="text">${e(f.text)}</span>
<span class="meta">${time(f.occurredAt)} · <span title="${e(f.eventType)} from ${e(f.source)}">${e(f.eventType)}</span></span>
</li>`;
}

/** One `<li>` of a launch's events. */
export function launchEventRow(v: LaunchEventItem): string {
  const who = v.account
    ? ` by <span class="mono" title="${e(v.account)}">${e(shortAddress(v.account))}</span>`
    : "";
  const amount = v.amount ? ` <span title="${e(v.amount)} wei">${e(bnb(v.amount))}</span>` : "";
  const total = v.totalDeposited
    ? ` · total <span title="${e(v.totalDeposited)} wei">${e(bnb(v.totalDeposited))}</span>`
    : "";
  return `<li class="event" data-key="${e(`${v.txHash}:${v.logIndex}`)}"><strong>${e(v.type)}</strong>${amount}${who}${total} · ${time(v.timestamp)}</li>`;
}
