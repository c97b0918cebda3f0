import { html, raw } from "hono/html";
import { bnb, relativeTime, usd } from "../format.ts";
import { type MarketTradeItem, tickerRow } from "../rows.ts";
import type { AgentSummary, Launch, OffsetList, PlatformStats, TokenRecord } from "../types.ts";
import {
  avatar,
  changeCell,
  exact,
  marketCapCell,
  priceCell,
  progressCell,
  statusBadge,
  volume24hCell,
} from "./bits.ts";
import { type Html, layout, type PageContext } from "./layout.ts";

/** The sorts the home page offers (the API's `/tokens` sorts). */
export const HOME_SORTS = {
  trending: "Trending",
  new: "New",
  marketCap: "Market cap",
  volume24h: "24 h volume",
  taxIncome: "Tax income",
} as const;
export type HomeSort = keyof typeof HOME_SORTS;

export type HomeData = {
  featured: { agent: AgentSummary; token: TokenRecord | null } | null;
  tokens: OffsetList<TokenRecord>;
  launches: Launch[];
  sort: HomeSort;
  page: number;
  /** Null when the API could not give them: the rest of the page still renders. */
  stats: PlatformStats | null;
  trades: MarketTradeItem[];
  /** Token address -> symbol, for the ticker's names. */
  symbols: Record<string, string>;
};

/** The platform totals (GET /v2/stats); the island re-reads them after trades. */
export function statsStrip(s: PlatformStats | null): Html {
  if (!s) return html``;
  const item = (id: string, label: string, value: string, title = "") =>
    html`<div><dt>${label}</dt><dd id="${id}" title="${title}">${value}</dd></div>`;
  return html`<section class="card platform" aria-label="Platform totals">
<dl class="stats" id="platform-stats" data-block="${s.indexedBlock}">
${item("ps-agents", "Agents", s.agents.toLocaleString("en-US"))}
${item("ps-launched", "Tokens launched", s.tokens.launched.toLocaleString("en-US"))}
${item("ps-graduated", "Graduated", s.tokens.graduated.toLocaleString("en-US"))}
${item("ps-volume24h", "24 h volume", bnb(s.volume.bnb24h), `${s.volume.bnb24h} wei = ${usd(s.volume.usd24h)}`)}
${item("ps-volume", "Total volume", bnb(s.volume.bnbTotal), `${s.volume.bnbTotal} wei = ${usd(s.volume.usdTotal)}`)}
${item("ps-raised", "Raised by deposit launches", bnb(s.depositLaunches.raisedBnb), `${s.depositLaunches.launched} of ${s.depositLaunches.total} launched`)}
</dl>
<p class="small">As of block ${s.indexedBlock}.</p>
</section>`;
}

/** The live trade ticker: newest first; the island prepends each trade of the `trades` channel. */
function ticker(d: HomeData): Html {
  return html`<section aria-labelledby="ticker-h">
<div class="section-head"><h2 id="ticker-h">Latest trades</h2></div>
<ol class="ticker" id="ticker" aria-live="polite">${raw(d.trades.map((t) => tickerRow(t, d.symbols[t.token])).join(""))}</ol>
${d.trades.length === 0 ? html`<p class="empty" id="ticker-empty">No trade yet.</p>` : ""}
</section>`;
}

const agentHref = (address: string) => `/agent/${address}`;

function featuredBlock(f: NonNullable<HomeData["featured"]>): Html {
  const t = f.token;
  return html`<section class="featured card" aria-labelledby="featured-h">
<p class="eyebrow">Featured agent</p>
<h2 id="featured-h"><a href="${agentHref(f.agent.tokenAddress)}">${f.agent.name}</a>
<span class="ticker">$${f.agent.ticker}</span> ${statusBadge(f.agent.status)}</h2>
${
  t
    ? html`<dl class="stats">
<div><dt>Price</dt><dd>${priceCell(t)}</dd></div>
<div><dt>Market cap</dt><dd>${marketCapCell(t)}</dd></div>
<div><dt>24 h volume</dt><dd>${volume24hCell(t)}</dd></div>
<div><dt>24 h</dt><dd>${changeCell(t.priceChange24h)}</dd></div>
<div><dt>Curve</dt><dd>${progressCell(t)}</dd></div>
</dl>`
    : ""
}
</section>`;
}

/** Under the `taxIncome` sort the list shows the figure it is sorted by. */
const taxIncomeCell = (t: TokenRecord) =>
  html`<td class="num" data-field="tax-income">${exact(bnb(t.taxIncomeBnb), `${t.taxIncomeBnb} wei`)}</td>`;

function tokenRow(t: TokenRecord, sort: HomeSort): Html {
  const name = t.name ?? t.address;
  return html`<tr>
<td><a class="token" href="${agentHref(t.address)}">${avatar(t.image, "", 32)}<span><strong>${name}</strong>
<span class="ticker">${t.symbol ? `$${t.symbol}` : ""}</span>${t.agentId ? "" : html` <span class="badge">deposit launch</span>`}</span></a></td>
<td>${statusBadge(t.status)}</td>
<td class="num">${priceCell(t)}</td>
<td class="num">${marketCapCell(t)}</td>
<td class="num hide-narrow">${volume24hCell(t)}</td>
<td class="num">${changeCell(t.priceChange24h)}</td>
<td class="hide-narrow">${progressCell(t)}</td>
${sort === "taxIncome" ? taxIncomeCell(t) : ""}
</tr>`;
}

/** Previous/next links of an offset-paged list. */
export function pager(base: string, page: number, total: number, size: number): Html {
  const pages = Math.max(1, Math.ceil(total / size));
  const link = (p: number) => `${base}${base.includes("?") ? "&" : "?"}page=${p}`;
  return html`<nav class="pager" aria-label="Pages">
${page > 1 ? html`<a href="${link(page - 1)}" rel="prev">← Newer</a>` : html`<span></span>`}
<span>Page ${page} of ${pages}</span>
${page < pages ? html`<a href="${link(page + 1)}" rel="next">Older →</a>` : html`<span></span>`}
</nav>`;
}

/** `/`: the featured agent, every token with its market figures (sortable, paged), new launches. */
export function homePage(ctx: PageContext, d: HomeData): Html {
  const sorts = Object.entries(HOME_SORTS).map(
    ([key, label]) =>
      html`<a href="/?sort=${key}" ${key === d.sort ? html`aria-current="true" class="on"` : ""}>${label}</a>`,
  );
  const body = html`
${statsStrip(d.stats)}
${d.featured ? featuredBlock(d.featured) : ""}
${ticker(d)}
<section aria-labelledby="agents-h">
<div class="section-head"><h1 id="agents-h">Agents</h1>
<nav class="tabs" aria-label="Sort by">${sorts}</nav></div>
${
  d.tokens.items.length === 0
    ? html`<p class="empty">No agent has launched yet. Launch one with the README's curl, then run
<code>npx launchpad devnet seed</code> for sample trades.</p>`
    : html`<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Agent</th><th scope="col">Status</th><th scope="col" class="num">Price</th>
<th scope="col" class="num">Market cap</th><th scope="col" class="num hide-narrow">24 h volume</th>
<th scope="col" class="num">24 h</th><th scope="col" class="hide-narrow">Curve</th>
${d.sort === "taxIncome" ? html`<th scope="col" class="num">Tax income</th>` : ""}</tr></thead>
<tbody>${d.tokens.items.map((t) => tokenRow(t, d.sort))}</tbody>
</table></div>
${pager(`/?sort=${d.sort}`, d.page, d.tokens.total, d.tokens.limit)}`
}
</section>
<section aria-labelledby="launches-h">
<div class="section-head"><h2 id="launches-h">Newest deposit launches</h2><a href="/launches">All launches →</a></div>
${
  d.launches.length === 0
    ? html`<p class="empty">No deposit launch yet.</p>`
    : html`<ul class="cards">${d.launches.map(
        (
          l,
        ) => html`<li class="card"><a href="/launches/${l.id}"><strong>${l.name ?? `Launch #${l.id}`}</strong>
<span class="ticker">${l.symbol ? `$${l.symbol}` : ""}</span></a> ${statusBadge(l.status)}
<p class="small"><span title="${l.totalDeposited} wei">${bnb(l.totalDeposited)}</span> from ${l.depositorCount}
depositor${l.depositorCount === 1 ? "" : "s"} · closes <time datetime="${l.closeTimestamp}" title="${l.closeTimestamp}">${relativeTime(l.closeTimestamp)}</time></p></li>`,
      )}</ul>`
}
</section>`;
  return layout(ctx, {
    title: "Agents",
    body,
    script: "home",
    data: { apiUrl: ctx.apiUrl, wsUrl: ctx.wsUrl, symbols: d.symbols },
  });
}
