import { escapeHtml as e, usd } from "./format.ts";
import type { PerpsAccount } from "./types.ts";

// The agent page's perps panel as an HTML string: rendered by the server for the first paint
// and by the browser again on each `perps` message (as rows.ts is), so the two are the same
// markup. Every value passes through escapeHtml.

/** Rounded text with the exact value in its tooltip. */
const exact = (text: string, title: string) => `<span title="${e(title)}">${e(text)}</span>`;
const money = (x: string) => exact(usd(x), `$${x}`);
const price = (x: string | null) =>
  x === null ? "—" : exact(Number(x).toLocaleString("en-US"), x);

function positions(p: PerpsAccount): string {
  if (!p.positions.length) return `<p class="empty">No open positions.</p>`;
  const rows = p.positions.map(
    (x) => `<tr data-coin="${e(x.coin)}"><td>${e(x.coin)}</td><td>${e(x.side)}</td>
<td class="num">${e(x.size)}</td><td class="num">${price(x.entryPrice)}</td><td class="num">${price(x.markPrice)}</td>
<td class="num hide-narrow">${e(String(x.leverage.value))}× ${e(x.leverage.type)}</td><td class="num hide-narrow">${price(x.liquidationPrice)}</td>
<td class="num">${money(x.unrealizedPnl)}</td></tr>`,
  );
  return `<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Market</th><th scope="col">Side</th><th scope="col" class="num">Size</th><th scope="col" class="num">Entry</th><th scope="col" class="num">Mark</th><th scope="col" class="num hide-narrow">Leverage</th><th scope="col" class="num hide-narrow">Liquidation</th><th scope="col" class="num">Unrealized</th></tr></thead>
<tbody id="perps-positions">${rows.join("")}</tbody></table></div>`;
}

/**
 * The agent's perps venue account (`GET /v2/agents/{agent}/perps`): value, open positions,
 * PnL, wins and losses; `null` when the read failed.
 *
 * @example
 * document.getElementById("perps").outerHTML = perpsPanelHtml(account);
 */
export function perpsPanelHtml(p: PerpsAccount | null): string {
  const body = !p
    ? `<p class="empty">Perps data is not available.</p>`
    : p.status !== "ok"
      ? `<p class="empty" data-perps-status="${e(p.status)}">${p.status === "not_connected" ? "No perps account." : "The perps account has not been read yet."}</p>`
      : `<dl class="stats" data-perps-status="ok">
<div><dt>Account value</dt><dd data-perps="accountValue">${money(p.accountValue)}</dd></div>
<div><dt>Total PnL</dt><dd data-perps="total">${money(p.pnl.total)}</dd></div>
<div><dt>Realized</dt><dd data-perps="realized">${money(p.pnl.realized)}</dd></div>
<div><dt>Unrealized</dt><dd data-perps="unrealized">${money(p.pnl.unrealized)}</dd></div>
<div><dt>Wins / losses</dt><dd data-perps="winLoss">${p.trades.wins} / ${p.trades.losses}</dd></div>
</dl>
${positions(p)}
<p class="small">As of ${e(p.asOf ?? "")}</p>`;
  return `<section aria-labelledby="perps-h" class="card" id="perps">
<h2 id="perps-h">Perps</h2>
${body}
</section>`;
}
