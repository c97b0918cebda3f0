import { bnb, relativeTime, usd } from "../format.ts";
import { WEB_LIMITS } from "../limits.ts";
import { type MarketTradeItem, tickerRow } from "../rows.ts";
import type { PlatformStats } from "../types.ts";
import { live, pageData, tickRelativeTimes } from "./live.ts";

// The home page's island: the trade ticker, live from the `trades` channel, and the platform
// totals re-read from REST after trades (at most once per statsRefreshMs).

type Data = { apiUrl: string; wsUrl: string; symbols: Record<string, string> };

const d = pageData<Data>();
const list = document.getElementById("ticker") as HTMLOListElement;
const $ = (id: string) => document.getElementById(id);

function prepend(t: MarketTradeItem): void {
  const key = `${t.txHash}:${t.logIndex}`;
  if (list.querySelector(`[data-key="${CSS.escape(key)}"]`)) return;
  list.insertAdjacentHTML("afterbegin", tickerRow(t, d.symbols[t.token]));
  $("ticker-empty")?.remove();
  while (list.children.length > WEB_LIMITS.tickerSize) list.lastElementChild?.remove();
}

let statsTimer: ReturnType<typeof setTimeout> | undefined;
function refreshStats(): void {
  if (statsTimer) return;
  statsTimer = setTimeout(async () => {
    statsTimer = undefined;
    const res = await fetch(`${d.apiUrl}/v2/stats`).catch(() => null);
    if (!res?.ok) return;
    const s = ((await res.json()) as { data: PlatformStats }).data;
    const set = (id: string, text: string, title?: string) => {
      const el = $(id);
      if (!el) return;
      el.textContent = text;
      if (title !== undefined) el.title = title;
    };
    set("ps-agents", s.agents.toLocaleString("en-US"));
    set("ps-launched", s.tokens.launched.toLocaleString("en-US"));
    set("ps-graduated", s.tokens.graduated.toLocaleString("en-US"));
    set("ps-volume24h", bnb(s.volume.bnb24h), `${s.volume.bnb24h} wei = ${usd(s.volume.usd24h)}`);
    set(
      "ps-volume",
      bnb(s.volume.bnbTotal),
      `${s.volume.bnbTotal} wei = ${usd(s.volume.usdTotal)}`,
    );
    set("ps-raised", bnb(s.depositLaunches.raisedBnb));
    $("platform-stats")?.setAttribute("data-block", s.indexedBlock);
  }, WEB_LIMITS.statsRefreshMs);
}

const socket = live(d.wsUrl, (up) => document.body.classList.toggle("offline", !up));
socket.subscribe("trades", undefined, (m) => {
  if (m.type === "trade") {
    prepend(m.data as MarketTradeItem);
    refreshStats();
  } else if (m.type === "removed") {
    const r = m.data as { txHash: string; logIndex: number };
    list.querySelector(`[data-key="${CSS.escape(`${r.txHash}:${r.logIndex}`)}"]`)?.remove();
  }
});
tickRelativeTimes(relativeTime);
