import { html } from "hono/html";
import { bnb, bps, relativeTime, tokens } from "../format.ts";
import type { Depositor, Launch, OffsetList } from "../types.ts";
import { address, exact, statusBadge } from "./bits.ts";
import { pager } from "./home.ts";
import { type Html, layout, type PageContext } from "./layout.ts";

const when = (iso: string) =>
  html`<time datetime="${iso}" title="${iso}">${relativeTime(iso)}</time>`;

/** `/launches`: every deposit launch, newest first, paged. */
export function launchesPage(ctx: PageContext, list: OffsetList<Launch>, page: number): Html {
  const body = html`<section aria-labelledby="launches-h">
<h1 id="launches-h">Deposit launches</h1>
<p class="small">Deposit BNB into a launch's vault before it closes; when it launches, depositors
claim the token, and if it does not, they take their BNB back.</p>
${
  list.items.length === 0
    ? html`<p class="empty">No deposit launch yet.</p>`
    : html`<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Launch</th><th scope="col">Status</th><th scope="col" class="num">Deposited</th>
<th scope="col" class="num hide-narrow">Depositors</th><th scope="col">Closes</th></tr></thead>
<tbody>${list.items.map(
        (
          l,
        ) => html`<tr><td><a href="/launches/${l.id}"><strong>${l.name ?? `Launch #${l.id}`}</strong></a>
<span class="ticker">${l.symbol ? `$${l.symbol}` : ""}</span></td>
<td>${statusBadge(l.status)}</td>
<td class="num">${exact(bnb(l.totalDeposited), `${l.totalDeposited} wei`)}</td>
<td class="num hide-narrow">${l.depositorCount}</td><td>${when(l.closeTimestamp)}</td></tr>`,
      )}</tbody></table></div>
${pager("/launches", page, list.total, list.limit)}`
}
</section>`;
  return layout(ctx, { title: "Launches", body });
}

export type LaunchPageData = {
  launch: Launch;
  depositors: OffsetList<Depositor>;
  selectors: Record<"deposit" | "withdraw" | "claim" | "refund" | "deposits", string>;
};

function wallet(l: Launch): Html {
  return html`<section aria-labelledby="wallet-h" class="card" id="wallet">
<h2 id="wallet-h">Your wallet</h2>
<p id="wallet-status" aria-live="polite">No wallet connected.</p>
<div class="actions">
<button type="button" id="connect">Connect wallet</button>
<button type="button" id="signin" hidden>Sign in with Ethereum</button>
</div>
<p id="my-deposit" hidden>Your deposit: <strong id="my-deposit-amount">–</strong></p>
<form id="deposit-form" class="inline" ${l.status === "open" ? "" : "hidden"}>
<label for="deposit-amount">Deposit (BNB)</label>
<input id="deposit-amount" name="amount" inputmode="decimal" autocomplete="off" required pattern="[0-9]*[.]?[0-9]+" placeholder="0.1">
<button type="submit" disabled>Deposit</button>
</form>
<form id="withdraw-form" class="inline" ${l.status === "open" ? "" : "hidden"}>
<label for="withdraw-amount">Withdraw (BNB)</label>
<input id="withdraw-amount" name="amount" inputmode="decimal" autocomplete="off" required pattern="[0-9]*[.]?[0-9]+" placeholder="0.1">
<button type="submit" disabled>Withdraw</button>
</form>
<div class="actions">
<button type="button" id="claim" disabled ${l.status === "launched" ? "" : "hidden"}>Claim tokens</button>
<button type="button" id="refund" disabled ${l.status === "refund" ? "" : "hidden"}>Refund my BNB</button>
</div>
<p id="tx-status" aria-live="polite"></p>
</section>`;
}

/** `/launches/<id>`: the vault's state, depositors, live events and the wallet's buttons. */
export function launchPage(ctx: PageContext, d: LaunchPageData): Html {
  const l = d.launch;
  const body = html`<section class="agent-head"><div class="who">
<h1>${l.name ?? `Launch #${l.id}`} <span class="ticker">${l.symbol ? `$${l.symbol}` : ""}</span>
<span id="launch-status">${statusBadge(l.status)}</span></h1>
<p class="small">Launch #${l.id} · vault <span class="mono wrap">${l.vault}</span></p>
</div></section>
<dl class="stats">
<div><dt>Deposited</dt><dd id="total-deposited">${exact(bnb(l.totalDeposited), `${l.totalDeposited} wei`)}</dd></div>
<div><dt>Depositors</dt><dd id="depositor-count">${l.depositorCount}</dd></div>
<div><dt>Closes</dt><dd>${when(l.closeTimestamp)}</dd></div>
<div><dt>Tier</dt><dd>${l.tier}</dd></div>
<div><dt>Taxes (buy/sell)</dt><dd>${bps(l.buyTaxBps)} / ${bps(l.sellTaxBps)}</dd></div>
<div><dt>Creator</dt><dd>${address(l.creator)}</dd></div>
<div><dt>Treasury</dt><dd>${address(l.treasury)}</dd></div>
<div><dt>Token</dt><dd>${l.token ? html`<a href="/agent/${l.token}">${address(l.token)}</a>` : html`${address(l.predictedToken)} <span class="small">(predicted)</span>`}</dd></div>
${l.tokensForDepositors ? html`<div><dt>Tokens for depositors</dt><dd>${exact(tokens(l.tokensForDepositors), l.tokensForDepositors)}</dd></div>` : ""}
<div><dt>Claimed</dt><dd>${exact(bnb(l.totalClaimed), `${l.totalClaimed}`)}</dd></div>
<div><dt>Refunded</dt><dd>${exact(bnb(l.totalRefunded), `${l.totalRefunded} wei`)}</dd></div>
</dl>
<div class="grid2">
${wallet(l)}
<section aria-labelledby="events-h" class="card">
<h2 id="events-h">Live events <span class="live" aria-hidden="true"></span></h2>
<ul id="launch-events" class="feed scroll"></ul>
<p class="empty" id="events-empty">Deposits, withdrawals and claims appear here as they happen.</p>
</section>
</div>
<section aria-labelledby="depositors-h" class="card">
<h2 id="depositors-h">Depositors (${d.depositors.total})</h2>
<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Account</th><th scope="col" class="num">Deposited</th><th scope="col" class="num hide-narrow">Claimed</th><th scope="col" class="num hide-narrow">Refunded</th></tr></thead>
<tbody id="depositors">${d.depositors.items.map(
    (x) => html`<tr data-account="${x.account}"><td>${address(x.account)}</td>
<td class="num">${exact(bnb(x.principal), `${x.principal} wei`)}</td>
<td class="num hide-narrow">${exact(tokens(x.claimed), x.claimed)}</td>
<td class="num hide-narrow">${exact(bnb(x.refunded), `${x.refunded} wei`)}</td></tr>`,
  )}</tbody></table></div>
</section>`;
  return layout(ctx, {
    title: l.name ?? `Launch #${l.id}`,
    body,
    script: "launch",
    data: {
      apiUrl: ctx.apiUrl,
      wsUrl: ctx.wsUrl,
      launchId: l.id,
      vault: l.vault,
      status: l.status,
      chainId: 56,
      selectors: d.selectors,
    },
  });
}
