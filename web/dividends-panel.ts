import { bnb, escapeHtml as e } from "./format.ts";
import type { WalletDividends } from "./holder-types.ts";

// The figures of a wallet's dividends panel as an HTML string: rendered by the server for the
// first paint and by the browser again after a claim reaches the wallet's `dividends` channel,
// so the two are the same markup. The panel's buttons sit outside it and are never redrawn.

/** BNB wei rounded for people, exact in the tooltip and in `data-wei`. */
const wei = (field: string, x: string) =>
  `<span data-field="${field}" data-wei="${e(x)}" title="${e(x)} wei">${e(bnb(x))}</span>`;

function rows(d: WalletDividends): string {
  return d.items
    .map(
      (
        x,
      ) => `<tr data-token="${e(x.token)}"><td><a href="/agent/${e(x.token)}">${e(x.name ?? x.token)}</a> <span class="ticker">${x.symbol ? `$${e(x.symbol)}` : ""}</span></td>
<td class="num">${wei("claimable", x.claimableBnb)}</td><td class="num">${wei("claimed", x.claimedBnb)}</td></tr>`,
    )
    .join("");
}

/**
 * What a wallet can claim across the service's tax tokens and what it claimed
 * (`GET /v2/users/{address}/dividends`), and whether the keeper claims for it; `null` when the
 * read failed.
 *
 * @example
 * document.getElementById("dividends-figures").innerHTML = dividendsFiguresHtml(dividends);
 */
export function dividendsFiguresHtml(d: WalletDividends | null): string {
  if (!d) return `<p class="empty">Dividends are not available right now.</p>`;
  const table = d.items.length
    ? `<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Token</th><th scope="col" class="num">Claimable</th><th scope="col" class="num">Claimed</th></tr></thead>
<tbody id="dividend-tokens">${rows(d)}</tbody></table></div>${d.truncated ? `<p class="small">Only the first ${d.items.length} tokens are shown.</p>` : ""}`
    : `<p class="empty">No dividends: this address holds no tax token whose holders earn them.</p>`;
  return `<dl class="stats" data-claimable="${e(d.claimableBnb)}" data-auto-claim="${d.autoClaim}">
<div><dt>Claimable</dt><dd>${wei("claimable-total", d.claimableBnb)}</dd></div>
<div><dt>Claimed</dt><dd>${wei("claimed-total", d.claimedBnb)}</dd></div>
<div><dt>Keeper</dt><dd data-field="auto-claim">${d.autoClaim ? "claims for this wallet" : "off"}</dd></div>
</dl>
${table}
<p class="small">Paid in WBNB, to this address whoever sends the claim. As of block ${e(d.indexedBlock ?? "–")}.</p>`;
}
