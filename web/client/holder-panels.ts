import type { SellPledge, TokenTax } from "../holder-types.ts";
import { pledgePanelHtml } from "../pledge-panel.ts";
import type { FeedItem } from "../rows.ts";
import { taxPanelHtml } from "../tax-panel.ts";
import { coalesced } from "./live.ts";

/**
 * The agent page's holders' panels kept current from the agent's events: a `pledge.*` event (a
 * save, a loosening that bound) redraws the sell pledge, a `tax.income` event (the treasury paid
 * its share of a dispatch) the tax figures, each read again from REST and drawn with the
 * server's own markup, one read at a time.
 *
 * @example
 * const holders = holderPanels(apiUrl, token); holders.onEvent(feedItem);
 */
export function holderPanels(apiUrl: string, token: string) {
  const redraw = <T>(id: string, path: string, render: (x: T) => string) =>
    coalesced(async () => {
      const res = await fetch(`${apiUrl}${path}`).catch(() => null);
      const panel = document.getElementById(id);
      if (res?.ok && panel) panel.outerHTML = render(((await res.json()) as { data: T }).data);
    });
  const pledge = redraw<SellPledge>("pledge", `/v2/agents/${token}/pledge`, pledgePanelHtml);
  const tax = redraw<TokenTax>("tax", `/tokens/${token}/tax`, taxPanelHtml);
  return {
    onEvent(f: FeedItem): void {
      if (f.eventType.startsWith("pledge.")) pledge();
      else if (f.eventType === "tax.income") tax();
    },
  };
}
