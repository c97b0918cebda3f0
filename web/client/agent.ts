import {
  type CandlestickData,
  CandlestickSeries,
  createChart,
  HistogramSeries,
  type IChartApi,
  LineSeries,
  type UTCTimestamp,
} from "lightweight-charts";
import { priceBnb, relativeTime, small, unitsToNumber, usd } from "../format.ts";
import { perpsPanelHtml } from "../perps-panel.ts";
import { type FeedItem, feedRow, type TradeItem, tradeRow } from "../rows.ts";
import type { PerpsAccount } from "../types.ts";
import { holderPanels } from "./holder-panels.ts";
import { coalesced, live, pageData, tickRelativeTimes } from "./live.ts";

// The agent page's island: the candle chart (live from the `token` channel), the trades tape,
// the activity feed, the perps panel and the holders' panels (live from the `agent` channel, the
// feed filtered by category) and the NAV chart.

type Data = {
  apiUrl: string;
  wsUrl: string;
  token: string;
  hasAgent: boolean;
  interval: string;
  nav: { t: string; status: string; navUsd: string | null }[];
};
type ApiCandle = {
  time: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volumeBnb: string;
};

const INTERVAL_SECONDS: Record<string, number> = {
  "1m": 60,
  "5m": 300,
  "15m": 900,
  "1h": 3600,
  "4h": 14400,
  "1d": 86400,
};
const CHART_LIMIT = 1000;
const TAPE_SIZE = 50;
const STATS_REFRESH_MS = 10_000;

const d = pageData<Data>();
const $ = (id: string) => document.getElementById(id);
const dark = window.matchMedia("(prefers-color-scheme: dark)");

function theme() {
  const fg = dark.matches ? "#d6d9e0" : "#1d2330";
  const grid = dark.matches ? "#262b36" : "#eceef2";
  return {
    layout: { background: { color: "transparent" }, textColor: fg, attributionLogo: false },
    grid: { vertLines: { color: grid }, horzLines: { color: grid } },
  };
}

/** The browser's language when Intl accepts it (some report tags like `en-US@posix`). */
function locale(): string {
  try {
    new Intl.NumberFormat(navigator.language);
    return navigator.language;
  } catch {
    return "en-US";
  }
}

function makeChart(el: HTMLElement, height: number): IChartApi {
  const chart = createChart(el, {
    ...theme(),
    localization: { locale: locale() },
    height,
    autoSize: true,
    timeScale: { timeVisible: true, secondsVisible: false },
    rightPriceScale: { borderVisible: false },
  });
  dark.addEventListener("change", () => chart.applyOptions(theme()));
  return chart;
}

// ---- candles -------------------------------------------------------------------------------

const chartEl = $("chart") as HTMLElement;
const chart = makeChart(chartEl, 360);
const priceFormat = { type: "custom" as const, minMove: 1e-12, formatter: (n: number) => small(n) };
const candles = chart.addSeries(CandlestickSeries, {
  priceFormat,
  upColor: "#16a34a",
  downColor: "#dc2626",
  wickUpColor: "#16a34a",
  wickDownColor: "#dc2626",
  borderVisible: false,
});
const volume = chart.addSeries(HistogramSeries, {
  priceScaleId: "volume",
  priceFormat: { type: "volume" },
  color: "#8b93a780",
});
chart.priceScale("volume").applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
candles.priceScale().applyOptions({ scaleMargins: { top: 0.1, bottom: 0.25 } });

let interval = d.interval;
let volumes = new Map<number, number>();

const toBar = (c: ApiCandle): CandlestickData<UTCTimestamp> => ({
  time: (Date.parse(c.time) / 1000) as UTCTimestamp,
  open: unitsToNumber(c.open),
  high: unitsToNumber(c.high),
  low: unitsToNumber(c.low),
  close: unitsToNumber(c.close),
});

async function loadCandles(): Promise<void> {
  const status = $("chart-status") as HTMLElement;
  const asked = interval;
  const res = await fetch(
    `${d.apiUrl}/tokens/${d.token}/chart?interval=${asked}&limit=${CHART_LIMIT}`,
  ).catch(() => null);
  if (asked !== interval) return;
  if (!res?.ok) {
    status.textContent =
      res?.status === 503 ? "The index is catching up; candles soon." : "Candles unavailable.";
    return;
  }
  const body = (await res.json()) as { data: { items: ApiCandle[] } };
  const items = body.data.items;
  candles.setData(items.map(toBar));
  volumes = new Map(items.map((c) => [Date.parse(c.time) / 1000, unitsToNumber(c.volumeBnb)]));
  volume.setData([...volumes].map(([time, value]) => ({ time: time as UTCTimestamp, value })));
  chart.timeScale().fitContent();
  status.textContent = items.length
    ? `${items.length} candles of ${asked}, in BNB per token; live.`
    : "No trades yet: the first one draws the first candle.";
}

/** A trade moves the open candle (or opens the next one) without a reload. */
function applyTrade(t: TradeItem): void {
  const step = INTERVAL_SECONDS[interval] ?? 60;
  const time = (Math.floor(Date.parse(t.timestamp) / 1000 / step) * step) as UTCTimestamp;
  const price = unitsToNumber(t.price);
  const bars = candles.data() as CandlestickData<UTCTimestamp>[];
  const last = bars[bars.length - 1];
  if (last && time < last.time) return; // an older trade (a replay): already in the candles
  const bar =
    last && last.time === time
      ? { ...last, high: Math.max(last.high, price), low: Math.min(last.low, price), close: price }
      : { time, open: price, high: price, low: price, close: price };
  candles.update(bar);
  const v = (volumes.get(time) ?? 0) + unitsToNumber(t.bnbAmount);
  volumes.set(time, v);
  volume.update({ time, value: v });
  ($("chart-status") as HTMLElement).textContent =
    `Last trade ${priceBnb(t.price)} ${relativeTime(t.timestamp)}; live.`;
}

for (const b of document.querySelectorAll<HTMLButtonElement>("button[data-interval]")) {
  b.addEventListener("click", () => {
    interval = b.dataset.interval as string;
    for (const o of document.querySelectorAll("button[data-interval]"))
      o.setAttribute("aria-pressed", String(o === b));
    void loadCandles();
  });
}

// ---- tape and feed -------------------------------------------------------------------------

function prepend(list: HTMLElement, key: string, markup: string, emptyId: string): HTMLElement {
  const old = list.querySelector(`[data-key="${CSS.escape(key)}"]`);
  const tpl = document.createElement("template");
  tpl.innerHTML = markup.trim();
  const el = tpl.content.firstElementChild as HTMLElement;
  if (old) old.replaceWith(el);
  else list.prepend(el);
  el.classList.add("fresh");
  while (list.children.length > TAPE_SIZE) list.lastElementChild?.remove();
  $(emptyId)?.remove();
  return el;
}

const tape = $("trades") as HTMLElement;
const feed = $("feed") as HTMLElement;
let category = "";

function applyFilter(el: HTMLElement): void {
  el.hidden = category !== "" && el.dataset.category !== category;
}
for (const b of document.querySelectorAll<HTMLButtonElement>("button[data-category]")) {
  b.addEventListener("click", () => {
    category = b.dataset.category ?? "";
    for (const o of document.querySelectorAll("button[data-category]"))
      o.setAttribute("aria-pressed", String(o === b));
    for (const li of feed.querySelectorAll<HTMLElement>("li")) applyFilter(li);
  });
}

let statsTimer: ReturnType<typeof setTimeout> | undefined;
/**
 * The stats block's price and trade count, re-read from REST after trades: at most once per
 * STATS_REFRESH_MS however busy the token is (the API's per-IP budget is 60 a minute).
 */
function refreshStats(): void {
  if (statsTimer) return;
  statsTimer = setTimeout(async () => {
    statsTimer = undefined;
    const res = await fetch(`${d.apiUrl}/tokens/${d.token}`).catch(() => null);
    if (!res?.ok) return;
    const t = (
      (await res.json()) as { data: { price: string; priceUsd: string | null; tradeCount: number } }
    ).data;
    const price = $("stat-price");
    if (price) {
      price.textContent = priceBnb(t.price);
      price.title = `${t.price} wei per token${t.priceUsd ? ` · ${usd(t.priceUsd)}` : ""}`;
    }
    const trades = $("stat-trades");
    if (trades) trades.textContent = t.tradeCount.toLocaleString("en-US");
  }, STATS_REFRESH_MS);
}

const socket = live(d.wsUrl, (up) => document.body.classList.toggle("offline", !up));
const holders = holderPanels(d.apiUrl, d.token);
socket.subscribe("token", d.token, (m) => {
  if (m.type === "trade") {
    const t = m.data as TradeItem;
    prepend(tape, `${t.txHash}:${t.logIndex}`, tradeRow(t), "trades-empty");
    applyTrade(t);
    refreshStats();
  } else if (m.type === "removed") {
    const r = m.data as { txHash: string; logIndex: number };
    tape.querySelector(`[data-key="${CSS.escape(`${r.txHash}:${r.logIndex}`)}"]`)?.remove();
    void loadCandles(); // a reorg took a trade back: the indexed candles are the truth
  }
});
if (d.hasAgent) {
  socket.subscribe("agent", d.token, (m) => {
    if (m.type === "perps") return void refreshPerps();
    if (m.type !== "event") return;
    const f = m.data as FeedItem;
    applyFilter(prepend(feed, f.id, feedRow(f), "feed-empty"));
    holders.onEvent(f);
  });
}

// ---- Perps -----------------------------------------------------------------------------------

/**
 * Reads the perps account again and redraws its panel with the server's own markup. One read at
 * a time: a `perps` message meanwhile asks for one more after it (polls come every few seconds).
 */
const refreshPerps = coalesced(async () => {
  const res = await fetch(`${d.apiUrl}/v2/agents/${d.token}/perps`).catch(() => null);
  const panel = $("perps");
  if (res?.ok && panel) {
    const p = ((await res.json()) as { data: PerpsAccount }).data;
    panel.outerHTML = perpsPanelHtml(p);
  }
});

// ---- NAV -----------------------------------------------------------------------------------

const navEl = $("nav-chart");
if (navEl) {
  const points = d.nav.filter((p) => p.status === "ok" && p.navUsd !== null);
  if (points.length === 0) {
    navEl.textContent = "No NAV snapshot yet (one is taken every hour).";
    navEl.classList.add("empty");
  } else {
    const nav = makeChart(navEl, 200).addSeries(LineSeries, {
      color: "#6366f1",
      priceFormat: { type: "custom", minMove: 0.01, formatter: (n: number) => usd(String(n)) },
    });
    nav.setData(
      points.map((p) => ({
        time: (Date.parse(p.t) / 1000) as UTCTimestamp,
        value: Number(p.navUsd),
      })),
    );
  }
}

tickRelativeTimes((iso) => relativeTime(iso));
void loadCandles();

/** For people in devtools and the browser test: what the chart holds right now. */
(window as unknown as { launchpadChart: unknown }).launchpadChart = {
  interval: () => interval,
  candles: () => candles.data(),
  volumes: () => volume.data(),
};
