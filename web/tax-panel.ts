import { bnb, escapeHtml as e, tokens } from "./format.ts";
import type { TokenTax } from "./holder-types.ts";

// The agent page's tax panel as an HTML string: rendered by the server for the first paint and
// by the browser again when the treasury is paid its share (a `tax.income` event), so the two
// are the same markup. Every value passes through escapeHtml.

/** BNB wei rounded for people, exact in the tooltip and in `data-wei`. */
const wei = (key: string, x: string) =>
  `<dd data-tax="${key}" data-wei="${e(x)}" title="${e(x)} wei">${e(bnb(x))}</dd>`;

/**
 * A token's tax income and its holders' dividends (`GET /tokens/{address}/tax`): what the tax
 * brought in, the treasury's share, dividends accrued, claimed and unclaimed, and the tax
 * dispatched by allocation; `null` when the read failed.
 *
 * @example
 * document.getElementById("tax").outerHTML = taxPanelHtml(tax);
 */
export function taxPanelHtml(t: TokenTax | null): string {
  const body = !t
    ? `<p class="empty">Tax figures are not available.</p>`
    : `${t.dispatches === 0 ? `<p class="empty">No tax dispatched yet: the token charges its tax on DEX trades after graduation.</p>` : ""}
<dl class="stats">
<div><dt>Tax income</dt>${wei("incomeBnb", t.incomeBnb)}</div>
<div><dt>Treasury's share</dt>${wei("treasuryBnb", t.treasuryBnb)}</div>
<div><dt>Dividends accrued</dt>${wei("accruedBnb", t.dividends.accruedBnb)}</div>
<div><dt>Dividends claimed</dt>${wei("claimedBnb", t.dividends.claimedBnb)}</div>
<div><dt>Dividends unclaimed</dt>${wei("unclaimedBnb", t.dividends.unclaimedBnb)}</div>
<div><dt>Dispatches / claims</dt><dd data-tax="counts">${t.dispatches} / ${t.dividends.claims}</dd></div>
</dl>
<p class="small" data-tax="dispatched" title="token units: ${e(t.taxDispatched.total)}">Tax dispatched: ${e(tokens(t.taxDispatched.total))} tokens
(${e(tokens(t.taxDispatched.treasury))} to the treasury, ${e(tokens(t.taxDispatched.holders))} to holders, ${e(tokens(t.taxDispatched.burn))} burnt, ${e(tokens(t.taxDispatched.liquidity))} to liquidity), sold for BNB at each dispatch. Holders' dividends are paid in WBNB.${t.indexedBlock ? ` As of block ${e(t.indexedBlock)}.` : ""}</p>`;
  return `<section aria-labelledby="tax-h" class="card" id="tax">
<h2 id="tax-h">Tax income and dividends</h2>
${body}
</section>`;
}
