import { html, raw } from "hono/html";
import { bnb, bps, tokens, usd } from "../format.ts";
import { type FeedItem, feedRow, type TradeItem, tradeRow } from "../rows.ts";
import type {
  AgentDetail,
  AssetHolding,
  BurnRate,
  Holdings,
  LaunchReport,
  NavPoint,
  PerpsAccount,
  SourceHoldings,
  TokenRecord,
} from "../types.ts";
import {
  address,
  avatar,
  changeCell,
  exact,
  marketCapCell,
  priceCell,
  priceUsdCell,
  progressCell,
  statusBadge,
  volume24hCell,
} from "./bits.ts";
import { type HolderPanelsData, holderPanels } from "./holders.ts";
import { type Html, layout, type PageContext } from "./layout.ts";
import { perpsPanel } from "./perps.ts";

/** Candle intervals the chart offers (the API's). */
export const CHART_INTERVALS = ["1m", "5m", "15m", "1h", "4h", "1d"] as const;
export const DEFAULT_INTERVAL = "15m";

export type AgentPageData = {
  address: string;
  agent: AgentDetail | null;
  token: TokenRecord | null;
  trades: TradeItem[];
  feed: FeedItem[];
  holdings: Holdings | null;
  burn: BurnRate | null;
  perps: PerpsAccount | null;
  nav: NavPoint[];
  /** The token's launch report; null for a token without one (not created, a deposit launch's). */
  report: LaunchReport | null;
  categories: readonly string[];
  /** The token's tax and dividends, the agent's sell pledge (web/pages/holders.ts). */
  holders: HolderPanelsData;
};

function header(d: AgentPageData): Html {
  const a = d.agent;
  const t = d.token;
  const name = a?.persona?.name ?? a?.name ?? t?.name ?? d.address;
  const links = [
    ...(a?.persona?.links ?? []),
    ...(a ? [{ label: "Launchpad", url: a.launchpadUrl }] : []),
  ];
  return html`<section class="agent-head">
${avatar(a?.persona?.imageUrl ?? a?.imageUrl ?? t?.image, `${name}'s picture`, 72)}
<div class="who">
<h1>${name} <span class="ticker">$${a?.ticker ?? t?.symbol ?? ""}</span>
${statusBadge(a?.status ?? t?.status ?? "pending")} ${a?.featured ? html`<span class="badge">featured</span>` : ""}</h1>
${a?.persona?.handle ? html`<p class="small">@${a.persona.handle}</p>` : ""}
<p class="bio">${a?.persona?.bio || a?.description || t?.description || ""}</p>
${
  links.length
    ? html`<ul class="links">${links.map(
        (l) =>
          html`<li><a href="${l.url}" rel="noopener nofollow" target="_blank">${l.label}</a></li>`,
      )}</ul>`
    : ""
}
<p class="small mono" title="token address">${d.address}</p>
${a?.firstBuy ? html`<p class="small" id="first-buy">First buy at launch: ${exact(tokens(a.firstBuy.tokenAmount), `${a.firstBuy.tokenAmount} units`)} tokens for ${exact(bnb(a.firstBuy.bnbAmount), `${a.firstBuy.bnbAmount} wei`)}</p>` : ""}
</div>
</section>`;
}

function stats(t: TokenRecord): Html {
  const market =
    t.status === "graduated"
      ? html`<div><dt>DEX pair</dt><dd>${address(t.pair)}</dd></div>
<div><dt>Liquidity</dt><dd>${exact(t.liquidityUsd ? usd(t.liquidityUsd) : bnb(t.liquidityBnb), `${t.liquidityBnb ?? 0} wei`)}</dd></div>`
      : html`<div class="wide"><dt>Bonding curve</dt><dd>${progressCell(t)}
<span class="small">${exact(bnb(t.raised), `${t.raised} wei`)} of ${exact(bnb(t.maxRaising), `${t.maxRaising} wei`)}</span></dd></div>`;
  return html`<dl class="stats" id="stats">
<div><dt>Price</dt><dd id="stat-price">${priceCell(t)}</dd></div>
<div><dt>Price (USD)</dt><dd>${priceUsdCell(t)}</dd></div>
<div><dt>Market cap</dt><dd>${marketCapCell(t)}</dd></div>
<div><dt>Holders</dt><dd>${t.holderCount.toLocaleString("en-US")}</dd></div>
<div><dt>24 h volume</dt><dd>${volume24hCell(t)}</dd></div>
<div><dt>24 h change</dt><dd>${changeCell(t.priceChange24h)}</dd></div>
<div><dt>Trades</dt><dd id="stat-trades">${t.tradeCount.toLocaleString("en-US")}</dd></div>
${market}
</dl>`;
}

function chart(): Html {
  return html`<section aria-labelledby="chart-h" class="card">
<div class="section-head"><h2 id="chart-h">Price</h2>
<div class="tabs" role="group" aria-label="Candle interval">${CHART_INTERVALS.map(
    (i) =>
      html`<button type="button" data-interval="${i}" aria-pressed="${i === DEFAULT_INTERVAL}">${i}</button>`,
  )}</div></div>
<div id="chart" class="chart" role="img" aria-label="Candle chart of the price in BNB with volume"></div>
<p class="small" id="chart-status" aria-live="polite">Loading candles…</p>
</section>`;
}

function tape(trades: TradeItem[]): Html {
  return html`<section aria-labelledby="tape-h" class="card">
<h2 id="tape-h">Trades <span class="live" aria-hidden="true"></span></h2>
<div class="table-wrap scroll"><table class="list tape">
<thead><tr><th scope="col">When</th><th scope="col">Side</th><th scope="col" class="num">Price</th>
<th scope="col" class="num">BNB</th><th scope="col" class="num hide-narrow">Tokens</th><th scope="col" class="hide-narrow">Account</th></tr></thead>
<tbody id="trades">${raw(trades.map(tradeRow).join(""))}</tbody>
</table></div>
${trades.length ? "" : html`<p class="empty" id="trades-empty">No trades yet.</p>`}
</section>`;
}

function feed(items: FeedItem[], categories: readonly string[]): Html {
  return html`<section aria-labelledby="feed-h" class="card">
<div class="section-head"><h2 id="feed-h">Activity <span class="live" aria-hidden="true"></span></h2>
<div class="tabs" role="group" aria-label="Filter by category">
<button type="button" data-category="" aria-pressed="true">all</button>
${categories.map((c) => html`<button type="button" data-category="${c}" aria-pressed="false">${c}</button>`)}
</div></div>
<ul id="feed" class="feed scroll">${raw(items.map(feedRow).join(""))}</ul>
${items.length ? "" : html`<p class="empty" id="feed-empty">Nothing happened yet.</p>`}
</section>`;
}

const assetRow = (a: AssetHolding) => html`<tr><td>${a.asset}</td><td>${a.chain}</td>
<td class="num">${exact(tokens(a.amount, a.decimals), `${a.amount} (${a.decimals} decimals)`)}</td>
<td class="num">${exact(usd(a.valueUsd), `$${a.valueUsd}`)}</td></tr>`;

function source(label: string, s: SourceHoldings): Html {
  return html`<tr class="source"><th scope="rowgroup" colspan="3">${label} ${s.address ? address(s.address) : ""}
${s.status === "ok" ? "" : html`<span class="badge">${s.status.replace("_", " ")}</span>`}</th>
<td class="num">${exact(usd(s.totalUsd), `$${s.totalUsd}`)}</td></tr>${s.assets.map(assetRow)}`;
}

function holdings(h: Holdings | null, burn: BurnRate | null): Html {
  return html`<section aria-labelledby="holdings-h" class="card">
<h2 id="holdings-h">Holdings</h2>
${
  h
    ? html`<p class="big">${exact(usd(h.totalUsd), `$${h.totalUsd}`)}
<span class="small">as of block ${h.asOf.block}</span></p>
<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Asset</th><th scope="col">Chain</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Value</th></tr></thead>
<tbody>${source("Treasury Safe", h.sources.agentSafe)}${source("Agent wallet", h.sources.hot)}${source("Perps", h.sources.hyperliquid)}</tbody>
</table></div>`
    : html`<p class="empty">Holdings are not available.</p>`
}
<h3>NAV history</h3>
<div id="nav-chart" class="chart small-chart" role="img" aria-label="Net asset value in USD over time"></div>
<h3>Burn and runway</h3>
${
  burn
    ? html`<dl class="stats">
<div><dt>Monthly burn</dt><dd>${exact(usd(burn.monthlyUsd), `$${burn.monthlyUsd}`)}</dd></div>
<div><dt>Treasury</dt><dd>${exact(usd(burn.treasuryUsd), `$${burn.treasuryUsd}`)}</dd></div>
<div><dt>Runway</dt><dd>${burn.runwayDays == null ? "no burn" : exact(`${Math.floor(Number(burn.runwayDays)).toLocaleString("en-US")} days`, `${burn.runwayDays} days`)}</dd></div>
</dl>
${
  burn.items.length
    ? html`<ul class="plain">${burn.items.map(
        (i) =>
          html`<li>${i.label ?? i.provider} <span class="small">(${i.kind}${i.usageBased ? ", usage" : ""}${i.configured ? "" : ", not configured"})</span>: ${exact(usd(i.monthlyUsd), `$${i.monthlyUsd}`)}/month</li>`,
      )}</ul>`
    : ""
}`
    : html`<p class="empty">No burn data.</p>`
}
</section>`;
}

function records(a: AgentDetail): Html {
  const policy =
    a.policyStatus === "active" && a.policy
      ? html`<p>Policy <span class="mono">${a.policy.policyId}</span> v${a.policy.version}</p>
<pre class="rules">${JSON.stringify(a.policy.rules, null, 2)}</pre>`
      : html`<p class="empty">${a.policyStatus === "none" ? "No trading policy." : "The signer did not answer."}</p>`;
  return html`<section aria-labelledby="apps-h" class="card">
<h2 id="apps-h">Apps</h2>
${
  a.apps.length
    ? html`<ul class="plain">${a.apps.map(
        (
          p,
        ) => html`<li><a href="${p.url}" rel="noopener nofollow" target="_blank">${p.name}</a> ${p.description}
${p.revenue.shareBps != null ? html`<span class="small">· ${bps(p.revenue.shareBps)} revenue to ${address(p.revenue.address)}</span>` : ""}</li>`,
      )}</ul>`
    : html`<p class="empty">No apps.</p>`
}
<h2>Wallets</h2>
<ul class="plain">${a.wallets.map(
    (w) =>
      html`<li>${w.label ?? w.role} <span class="small">(${w.chain}${w.builtIn ? ", from the launch" : ""})</span> <span class="mono wrap">${w.address}</span></li>`,
  )}</ul>
<h2>Identity</h2>
${
  a.identity
    ? html`<dl class="kv">
<dt>ERC-8004 id</dt><dd>${a.identity.eip8004TokenId}</dd>
<dt>Owner</dt><dd class="mono wrap">${a.identity.owner}</dd>
<dt>Agent URI</dt><dd class="wrap">${a.identity.agentURI}</dd>
<dt>Linked at block</dt><dd>${a.identity.linkedBlock}</dd>
</dl>`
    : html`<p class="empty">No identity record yet.</p>`
}
<h2>Trading policy</h2>
${policy}
</section>`;
}

const buyCells = (b: { tokenAmount: string; bnbAmount: string; shareBps: number }) =>
  html`<td class="num">${exact(tokens(b.tokenAmount), `${b.tokenAmount} units`)}</td>
<td class="num">${exact(bnb(b.bnbAmount), `${b.bnbAmount} wei`)}</td><td class="num">${bps(b.shareBps)}</td>`;

/** Who bought in the token's first blocks, the bundles among them, the creator's buy apart. */
function launchReport(r: LaunchReport): Html {
  const bundleOf = new Map(r.bundles.flatMap((u) => u.wallets.map((w) => [w, u.funder] as const)));
  return html`<section aria-labelledby="report-h" class="card" id="launch-report">
<h2 id="report-h">Launch report</h2>
<p class="small">Curve buys in the creation block and the ${r.windowBlocks} after it (to block ${r.windowEndBlock});
BNB sent to each buyer in the ${r.fundingLookbackBlocks} blocks before its first buy.
${r.final ? "Final." : html`<span class="badge">in progress</span>`}
${r.antiSniper ? html`<span class="badge">anti-sniper fees on</span>` : ""}</p>
<dl class="stats">
<div><dt>Creator's buy</dt><dd id="report-creator">${r.creatorBuy ? html`${exact(tokens(r.creatorBuy.tokenAmount), `${r.creatorBuy.tokenAmount} units`)} (${bps(r.creatorBuy.shareBps)})` : "none"}</dd></div>
<div><dt>Other buyers</dt><dd id="report-buyers">${r.totals.buyers}</dd></div>
<div><dt>Their share</dt><dd id="report-share">${bps(r.totals.shareBps)}</dd></div>
<div><dt>Bundles</dt><dd id="report-bundles">${r.bundles.length} (${r.totals.bundledWallets} wallets, ${bps(r.totals.bundledShareBps)})</dd></div>
</dl>
${r.bundles.map(
  (
    u,
  ) => html`<p class="bundle">Bundle: ${address(u.funder)}${u.funderIsCreator ? " (the creator)" : ""} funded
${u.wallets.length} buyers with ${exact(bnb(u.fundedWei), `${u.fundedWei} wei`)} just before they bought ${bps(u.shareBps)} of the supply.</p>`,
)}
${
  r.buyers.length
    ? html`<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Buyer</th><th scope="col" class="num">Block</th><th scope="col" class="num">Tokens</th>
<th scope="col" class="num">BNB</th><th scope="col" class="num">Supply</th><th scope="col">Funded by</th></tr></thead>
<tbody>${r.buyers.map(
        (
          b,
        ) => html`<tr><td>${address(b.account)}</td><td class="num">+${b.firstBlockOffset}</td>${buyCells(b)}
<td>${b.fundedBy.length ? b.fundedBy.map((f) => html`${address(f.funder)} `) : "—"}${bundleOf.has(b.account) ? html`<span class="badge">bundle</span>` : ""}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="empty">No one else bought in the first blocks.</p>`
}
</section>`;
}

/** `/agent/<token>` (and `/a/<slug>`): the agent's whole page; islands make it live. */
export function agentPage(ctx: PageContext, d: AgentPageData): Html {
  const title = d.agent?.name ?? d.token?.name ?? d.address;
  const body = html`${header(d)}
${d.token ? stats(d.token) : html`<p class="empty">The token is not indexed yet.</p>`}
${chart()}
${d.report ? launchReport(d.report) : ""}
<div class="grid2">${tape(d.trades)}${feed(d.feed, d.categories)}</div>
${d.agent ? html`<div class="grid2">${holdings(d.holdings, d.burn)}${records(d.agent)}</div>${perpsPanel(d.perps)}` : ""}
${d.token ? holderPanels(d.holders) : ""}`;
  return layout(ctx, {
    title,
    body,
    script: "agent",
    head: d.agent ? html`<link rel="canonical" href="${d.agent.agentPageUrl}">` : undefined,
    data: {
      apiUrl: ctx.apiUrl,
      wsUrl: ctx.wsUrl,
      token: d.address,
      hasAgent: d.agent !== null,
      interval: DEFAULT_INTERVAL,
      nav: d.nav,
    },
  });
}
