import { escapeHtml as e, relativeTime, tokens } from "./format.ts";
import type { PledgeVersion, SellPledge } from "./holder-types.ts";

// The agent page's sell-pledge panel as an HTML string: rendered by the server for the first
// paint and by the browser again when a `pledge.*` event arrives (as perps-panel.ts is), so the
// two are the same markup. Every value passes through escapeHtml.

/** A time as "in 6 d" / "3 min ago" with the ISO time in its tooltip (kept fresh by the island). */
const when = (iso: string) =>
  `<time datetime="${e(iso)}" title="${e(iso)}" data-relative>${e(relativeTime(iso))}</time>`;

const terms = (v: PledgeVersion) =>
  `${v.lockDays > 0 ? `no sale for ${v.lockDays} days after launch, ` : ""}at most ${e(v.maxDailySellPercent)}% of its holding sold a day, a loosening waits ${v.loosenDelayDays} days`;

/** What became of a version: in force, waiting, cancelled by a later save, or replaced. */
function state(v: PledgeVersion, p: SellPledge): string {
  if (v.pledgeId === p.inForce?.pledgeId) return "in force";
  if (v.pledgeId === p.pending?.pledgeId) return "pending";
  return v.cancelledAt ? "cancelled" : "replaced";
}

function history(p: SellPledge): string {
  const rows = p.history.map(
    (
      v,
    ) => `<tr data-pledge="${e(v.pledgeId)}"><td>saved ${when(v.createdAt)}<br><span class="small">binds ${when(v.effectiveAt)}</span></td>
<td>${v.lockDays} d lock-up, ${e(v.maxDailySellPercent)}% a day, loosening waits ${v.loosenDelayDays} d <span class="small">(by the ${e(v.createdBy.kind)})</span></td>
<td data-field="state" style="white-space:nowrap">${state(v, p)}</td></tr>`,
  );
  return `<h3>History</h3>
<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">When</th><th scope="col">Terms</th><th scope="col">State</th></tr></thead>
<tbody id="pledge-history">${rows.join("")}</tbody></table></div>`;
}

function inForce(p: SellPledge, v: PledgeVersion): string {
  const lock = p.lockedUntil
    ? `${Date.parse(p.lockedUntil) > Date.now() ? "ends" : "ended"} ${when(p.lockedUntil)} <span class="small">(${v.lockDays} days after launch)</span>`
    : v.lockDays > 0
      ? `${v.lockDays} days after launch`
      : "none";
  return `<dl class="stats" data-pledge-in-force="${e(v.pledgeId)}">
<div><dt>Lock-up</dt><dd data-pledge="lock">${lock}</dd></div>
<div><dt>Daily sales</dt><dd data-pledge="daily">at most ${e(v.maxDailySellPercent)}% of its holding</dd></div>
<div><dt>Loosening waits</dt><dd data-pledge="delay">${v.loosenDelayDays} days</dd></div>
<div><dt>Sold today</dt><dd data-pledge="soldToday" title="${e(p.soldTodayUnits)} token units">${e(tokens(p.soldTodayUnits))} tokens</dd></div>
</dl>`;
}

/**
 * The agent's sell pledge (`GET /v2/agents/{agent}/pledge`): the terms in force, a loosening
 * waiting with when it binds, and every version; `null` when the read failed.
 *
 * @example
 * document.getElementById("pledge").outerHTML = pledgePanelHtml(pledge);
 */
export function pledgePanelHtml(p: SellPledge | null): string {
  const body = !p
    ? `<p class="empty">The sell pledge is not available.</p>`
    : `${
        p.inForce
          ? inForce(p, p.inForce)
          : `<p class="empty" data-pledge="none">No pledge: the agent has promised nothing about selling its own token.</p>`
      }
${
  p.pending
    ? `<p id="pledge-pending" data-pledge="${e(p.pending.pledgeId)}"><span class="badge">pending</span> A loosening binds ${when(p.pending.effectiveAt)}: ${terms(p.pending)}.</p>`
    : ""
}
${p.history.length ? history(p) : ""}
<p class="small">The signer refuses any sale of the agent's token over the pledge in force; a looser pledge binds only after the delay of the one in force.</p>`;
  return `<section aria-labelledby="pledge-h" class="card" id="pledge">
<h2 id="pledge-h">Sell pledge</h2>
${body}
</section>`;
}
