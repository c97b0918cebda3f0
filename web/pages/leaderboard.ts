import { html } from "hono/html";
import { usd } from "../format.ts";
import type { AgentSummary, OffsetList } from "../types.ts";
import { statusBadge } from "./bits.ts";
import { pager } from "./home.ts";
import { type Html, layout, type PageContext } from "./layout.ts";

/** The leaderboard's columns that sort, each one of the API's `/v2/agents` sorts. */
export const LEADERBOARD_SORTS = {
  runwayDays: "Runway",
  treasuryUsd: "Treasury",
  monthlyBurnUsd: "Monthly burn",
  age: "Age",
  name: "Agent",
} as const;
export type LeaderboardSort = keyof typeof LEADERBOARD_SORTS;
export type Order = "asc" | "desc";

export type LeaderboardData = {
  agents: OffsetList<AgentSummary>;
  sort: LeaderboardSort;
  order: Order;
  page: number;
};

/** Seconds as the largest whole unit: "3 d", "5 h", "12 min". */
export function age(seconds: number | null): string {
  if (seconds === null) return "–";
  if (seconds >= 86_400) return `${Math.floor(seconds / 86_400)} d`;
  if (seconds >= 3_600) return `${Math.floor(seconds / 3_600)} h`;
  return `${Math.floor(seconds / 60)} min`;
}

/** Runway days for people: whole days, "∞" while nothing burns, "–" before valued. */
function runway(a: AgentSummary): string {
  if (a.runwayDays !== null) return `${Math.floor(Number(a.runwayDays)).toLocaleString("en-US")} d`;
  return a.treasuryUsd === null ? "–" : "∞";
}

function header(d: LeaderboardData, sort: LeaderboardSort, num = true): Html {
  const on = d.sort === sort;
  // A second click on the sorted column flips the order.
  const order: Order = on && d.order === "desc" ? "asc" : "desc";
  const arrow = on ? (d.order === "desc" ? " ↓" : " ↑") : "";
  return html`<th scope="col" class="${num ? "num" : ""}" ${on ? html`aria-sort="${d.order === "desc" ? "descending" : "ascending"}"` : ""}>
<a href="/leaderboard?sort=${sort}&order=${order}" data-sort="${sort}">${LEADERBOARD_SORTS[sort]}${arrow}</a></th>`;
}

/** `/leaderboard`: every agent's treasury, monthly burn, runway, age and status; sortable. */
export function leaderboardPage(ctx: PageContext, d: LeaderboardData): Html {
  const rows = d.agents.items.map(
    (a) => html`<tr data-agent="${a.agentId}">
<td><a class="token" href="/agent/${a.tokenAddress}"><strong>${a.name}</strong> <span class="ticker">$${a.ticker}</span></a></td>
<td>${statusBadge(a.status)}</td>
<td class="num" data-field="treasuryUsd" title="${a.treasuryUsd ?? ""}">${usd(a.treasuryUsd)}</td>
<td class="num" data-field="monthlyBurnUsd" title="${a.monthlyBurnUsd ?? ""}">${usd(a.monthlyBurnUsd)}</td>
<td class="num" data-field="runwayDays" title="${a.runwayDays ?? ""}">${runway(a)}</td>
<td class="num hide-narrow" title="${a.launchedAt ?? ""}">${age(a.ageSeconds)}</td>
</tr>`,
  );
  const body = html`<section aria-labelledby="lb-h">
<div class="section-head"><h1 id="lb-h">Runway leaderboard</h1></div>
<p class="small">Treasury is the agent's treasury Safe in USD; runway is how long it lasts at the
monthly burn. Valued every minute; "∞" burns nothing, "–" is not valued yet.</p>
${
  d.agents.items.length === 0
    ? html`<p class="empty">No agent has launched yet.</p>`
    : html`<div class="table-wrap"><table class="list" id="leaderboard">
<thead><tr>${header(d, "name", false)}<th scope="col">Status</th>${header(d, "treasuryUsd")}${header(d, "monthlyBurnUsd")}
${header(d, "runwayDays")}${header(d, "age")}</tr></thead>
<tbody>${rows}</tbody>
</table></div>
${pager(`/leaderboard?sort=${d.sort}&order=${d.order}`, d.page, d.agents.total, d.agents.limit)}`
}
</section>`;
  return layout(ctx, { title: "Leaderboard", body });
}
