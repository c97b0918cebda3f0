import { html, raw } from "hono/html";
import { dividendsFiguresHtml } from "../dividends-panel.ts";
import type { SellPledge, TokenTax, WalletDividends } from "../holder-types.ts";
import { pledgePanelHtml } from "../pledge-panel.ts";
import { taxPanelHtml } from "../tax-panel.ts";
import type { Html } from "./layout.ts";

// The holders' panels: on the agent page its sell pledge and its token's tax income and
// dividends, on a wallet's portfolio its dividends with the claim button and the keeper's opt-in.
// The markup of what the browser redraws comes from the string renderers it shares.

/** What the agent page shows holders; `pledge` only when an agent launched the token. */
export type HolderPanelsData = { tax: TokenTax | null; pledge?: SellPledge | null };

/** The token's tax panel and, for an agent's token, its sell pledge beside it. */
export function holderPanels(d: HolderPanelsData): Html {
  return html`<div class="grid2">${raw(taxPanelHtml(d.tax))}${
    d.pledge === undefined ? "" : raw(pledgePanelHtml(d.pledge))
  }</div>`;
}

/**
 * A wallet's dividends: the figures, the button that sends the claim from a connected wallet
 * (any wallet may send it; the dividends go to `address`), and the keeper's opt-in for the
 * wallet itself signed in.
 */
export function dividendsSection(address: string, d: WalletDividends | null): Html {
  return html`<section aria-labelledby="dividends-h" class="card" id="dividends" data-address="${address}">
<h2 id="dividends-h">Dividends <span class="live" aria-hidden="true"></span></h2>
<div id="dividends-figures">${raw(dividendsFiguresHtml(d))}</div>
<div class="actions">
<button type="button" id="claim-dividends" disabled>Claim all to this address</button>
<button type="button" id="dividends-signin" hidden>Sign in as this wallet</button>
<button type="button" id="auto-claim-on" hidden>Let the keeper claim for me</button>
<button type="button" id="auto-claim-off" hidden>Stop the keeper claiming</button>
</div>
<p class="small">The keeper claims for wallets that opt in every 15 minutes once a token owes
them 0.001 BNB, and pays the gas. Opting in or out needs this wallet signed in.</p>
<p id="dividends-status" aria-live="polite"></p>
</section>`;
}
