import { html } from "hono/html";
import { bnb, bps, percent, priceBnb, shortAddress, usd } from "../format.ts";
import type { TokenRecord } from "../types.ts";
import type { Html } from "./layout.ts";

// Small pieces the pages share. Rounded text on the page, the exact value in the tooltip.

/** Rounded text with the exact value in its tooltip. */
export const exact = (text: string, title: string) => html`<span title="${title}">${text}</span>`;

export const priceCell = (t: TokenRecord) =>
  exact(priceBnb(t.price), `${t.price} wei per token${t.priceUsd ? ` · $${t.priceUsd}` : ""}`);

export const priceUsdCell = (t: TokenRecord) =>
  exact(usd(t.priceUsd), t.priceUsd ? `$${t.priceUsd}` : "no BNB/USD answer yet");

export const marketCapCell = (t: TokenRecord) =>
  exact(
    t.marketCapUsd ? usd(t.marketCapUsd) : bnb(t.marketCap),
    `${t.marketCap} wei${t.marketCapUsd ? ` · $${t.marketCapUsd}` : ""}`,
  );

export const volume24hCell = (t: TokenRecord) =>
  exact(
    Number(t.volume24hUsd) > 0 ? usd(t.volume24hUsd) : bnb(t.volume24hBnb),
    `${t.volume24hBnb} wei · $${t.volume24hUsd}`,
  );

export function changeCell(n: number | null): Html {
  const cls = n == null ? "" : n > 0 ? "up" : n < 0 ? "down" : "";
  return html`<span class="${cls}" title="${n == null ? "younger than 24 h" : `${n}%`}">${percent(n)}</span>`;
}

/** The curve progress bar, or the DEX pair once graduated. */
export function progressCell(t: TokenRecord): Html {
  if (t.status === "graduated") return html`<span class="badge">DEX</span>`;
  const pct = Math.min(100, t.curveProgressBps / 100);
  return html`<span class="progress" role="progressbar" aria-valuemin="0" aria-valuemax="100"
aria-valuenow="${pct}" title="${t.raised} of ${t.maxRaising} wei raised (${bps(t.curveProgressBps)})"><span style="width:${pct}%"></span></span><span class="small">${bps(t.curveProgressBps)}</span>`;
}

export const statusBadge = (status: string) =>
  html`<span class="badge status-${status}">${status}</span>`;

export const address = (a: string | null | undefined) =>
  a ? html`<span class="mono" title="${a}">${shortAddress(a)}</span>` : html`–`;

/** An image from the agent's record; a neutral square when there is none. */
export function avatar(url: string | null | undefined, alt: string, size = 40): Html {
  if (!url || !/^https?:\/\//.test(url))
    return html`<span class="avatar blank" style="width:${size}px;height:${size}px" aria-hidden="true"></span>`;
  return html`<img class="avatar" src="${url}" alt="${alt}" width="${size}" height="${size}" loading="lazy" referrerpolicy="no-referrer">`;
}
