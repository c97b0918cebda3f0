import { html } from "hono/html";
import { bnb, bps, tokens } from "../format.ts";
import type { WalletDividends } from "../holder-types.ts";
import type { OffsetList, UserLaunch } from "../types.ts";
import { address, exact, statusBadge } from "./bits.ts";
import { dividendsSection } from "./holders.ts";
import { type Html, layout, type PageContext } from "./layout.ts";

const wei = (x: string) => exact(bnb(x), `${x} wei`);
const units = (x: string | null) => (x === null ? "—" : exact(tokens(x), x));

function row(l: UserLaunch): Html {
  return html`<tr data-launch="${l.id}"><td><a href="/launches/${l.id}">${l.name ?? `#${l.id}`}</a> ${l.created ? html`<span class="badge">creator</span>` : ""}</td>
<td>${statusBadge(l.status)}</td>
<td class="num" data-field="deposited">${wei(l.deposited)}</td>
<td class="num hide-narrow" data-field="withdrawn">${wei(l.withdrawn)}</td>
<td class="num" data-field="allocation">${units(l.allocation)}</td>
<td class="num" data-field="claimed">${units(l.claimed)}</td>
<td class="num" data-field="claimable">${units(l.claimable)}</td>
<td class="num hide-narrow" data-field="vested">${bps(l.vestedBps)}</td></tr>`;
}

/**
 * `/portfolio` (connect a wallet, or type an address) and `/portfolio/<address>`: per deposit
 * launch, what the address deposited, withdrew, is allocated, claimed and can claim now; and its
 * dividends across the service's tax tokens, with their claim and the keeper's opt-in.
 */
export function portfolioPage(
  ctx: PageContext,
  who: string | null,
  list: OffsetList<UserLaunch> | null,
  dividends?: WalletDividends | null,
): Html {
  const body = html`<section aria-labelledby="portfolio-h" class="card">
<h1 id="portfolio-h">Portfolio</h1>
<p id="wallet-status" aria-live="polite">${who ? html`Positions of ${address(who)}` : "No wallet connected."}</p>
<button type="button" id="connect">Connect wallet</button>
<form method="get" action="/portfolio" class="inline"><label>or an address <input name="address" pattern="0x[0-9a-fA-F]{40}" required></label> <button type="submit">Show</button></form>
${
  list
    ? list.items.length
      ? html`<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Launch</th><th scope="col">Status</th><th scope="col" class="num">Deposited</th><th scope="col" class="num hide-narrow">Withdrawn</th><th scope="col" class="num">Allocation</th><th scope="col" class="num">Claimed</th><th scope="col" class="num">Claimable</th><th scope="col" class="num hide-narrow">Vested</th></tr></thead>
<tbody id="positions">${list.items.map(row)}</tbody></table></div>`
      : html`<p class="empty">No deposit launches for this address.</p>`
    : ""
}
</section>
${who ? dividendsSection(who, dividends ?? null) : ""}`;
  return layout(ctx, {
    title: "Portfolio",
    body,
    script: "portfolio",
    data: { who, apiUrl: ctx.apiUrl, wsUrl: ctx.wsUrl, chainId: 56 },
  });
}
