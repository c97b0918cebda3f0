import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LoadReport } from "./types.ts";

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A line chart (one or more series over the same x) as inline SVG. */
function lineChart(
  title: string,
  xLabel: string,
  xs: number[],
  series: { name: string; ys: (number | null)[] }[],
  limit?: number,
) {
  const W = 560;
  const H = 220;
  const L = 50;
  const B = 30;
  const all = series.flatMap((s) => s.ys.filter((y): y is number => y !== null)).concat(limit ?? 0);
  const maxY = Math.max(1, ...all) * 1.1;
  const maxX = Math.max(1, ...xs);
  const px = (x: number) => L + (x / maxX) * (W - L - 10);
  const py = (y: number) => H - B - (y / maxY) * (H - B - 20);
  const colors = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2"];
  const lines = series.map((s, i) => {
    const pts = xs.flatMap((x, k) =>
      s.ys[k] === null ? [] : [`${px(x).toFixed(1)},${py(s.ys[k] as number).toFixed(1)}`],
    );
    const c = colors[i % colors.length];
    return (
      `<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts.join(" ")}"/>` +
      // A dot per point only where they stay apart (a sweep's steps, not a long run's windows).
      (pts.length > 60
        ? ""
        : pts
            .map(
              (p) => `<circle cx="${p.split(",")[0]}" cy="${p.split(",")[1]}" r="3" fill="${c}"/>`,
            )
            .join("")) +
      `<text x="${W - 150}" y="${20 + i * 14}" fill="${c}" font-size="11">${esc(s.name)}</text>`
    );
  });
  const limitLine =
    limit === undefined
      ? ""
      : `<line x1="${L}" x2="${W - 10}" y1="${py(limit)}" y2="${py(limit)}" stroke="#888" stroke-dasharray="4"/><text x="${L + 4}" y="${py(limit) - 4}" font-size="10" fill="#888">limit ${limit}</text>`;
  return `<figure><figcaption>${esc(title)}</figcaption><svg role="img" aria-label="${esc(title)}" width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">
<line x1="${L}" y1="${H - B}" x2="${W - 10}" y2="${H - B}" stroke="#000"/><line x1="${L}" y1="10" x2="${L}" y2="${H - B}" stroke="#000"/>
<text x="${L}" y="${H - 8}" font-size="10">0</text><text x="${W - 40}" y="${H - 8}" font-size="10">${maxX.toFixed(0)} ${esc(xLabel)}</text>
<text x="4" y="18" font-size="10">${maxY < 10 ? maxY.toFixed(2) : maxY.toFixed(0)}</text>${limitLine}${lines.join("")}</svg></figure>`;
}

/** A horizontal bar chart as inline SVG. */
function barChart(title: string, rows: [string, number][], unit: string) {
  const W = 560;
  const H = 24 + rows.length * 20;
  const max = Math.max(1e-9, ...rows.map((r) => r[1]));
  const bars = rows.map(
    ([k, v], i) =>
      `<text x="4" y="${30 + i * 20}" font-size="11">${esc(k)}</text><rect x="180" y="${18 + i * 20}" width="${(v / max) * 300}" height="14" fill="#2563eb"/><text x="${186 + (v / max) * 300}" y="${30 + i * 20}" font-size="11">${v.toLocaleString("en")} ${esc(unit)}</text>`,
  );
  return `<figure><figcaption>${esc(title)}</figcaption><svg role="img" aria-label="${esc(title)}" width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">${bars.join("")}</svg></figure>`;
}

/** The run over time, one point per timeline window: what a steady run's figures look like as they go. */
function timelineCharts(r: LoadReport): string[] {
  const pts = r.timeline;
  if (pts.length < 2) return [];
  const ts = pts.map((p) => p.t);
  const roles = ["postgres", "worker", "indexer", "api", "harness (load generator)"].filter((k) =>
    pts.some((p) => k in p.cores),
  );
  return [
    `<h2>Over time (a point every ${r.options.timelineSeconds} s)</h2>`,
    lineChart("trades a second mined, over time", "s", ts, [
      { name: "trades/s", ys: pts.map((p) => p.tradesPerSecond) },
    ]),
    lineChart(
      "index lag p99 (ms), over time",
      "s",
      ts,
      [{ name: "lag p99", ys: pts.map((p) => p.lagP99) }],
      r.ceiling.lagLimitMs,
    ),
    lineChart("read p99 and WebSocket delivery p99 (ms), over time", "s", ts, [
      { name: "reads p99", ys: pts.map((p) => p.readP99) },
      { name: "WebSocket p99", ys: pts.map((p) => p.wsP99) },
    ]),
    lineChart(
      "CPU per role (cores), over time",
      "s",
      ts,
      roles.map((k) => ({ name: k, ys: pts.map((p) => p.cores[k] ?? null) })),
    ),
  ];
}

function table(rows: Record<string, unknown>[]): string {
  if (!rows.length) return "<p>none</p>";
  const keys = Object.keys(rows[0] as object);
  return `<table><tr>${keys.map((k) => `<th>${esc(k)}</th>`).join("")}</tr>${rows
    .map(
      (r) =>
        `<tr>${keys.map((k) => `<td>${esc(typeof r[k] === "object" ? JSON.stringify(r[k]) : String(r[k]))}</td>`).join("")}</tr>`,
    )
    .join("")}</table>`;
}

/** Writes `report.json` and `report.html` (self-contained: inline SVG, no script) to `dir`. */
export function writeReport(dir: string, r: LoadReport): { json: string; html: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, "report.json");
  const html = join(dir, "report.html");
  writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
  const steps = r.steps;
  const rates = steps.map((s) => s.tradesPerSecond);
  const routes = Object.keys(r.idle.readsMs);
  const body = [
    `<h1>Load run ${esc(r.startedAt)}</h1>`,
    `<p>${esc(r.command)}<br>${r.options.agents} agents, blocks every ${r.options.blockTime} s, ${esc(r.machine)}</p>`,
    `<h2>Ceiling</h2><p>ours: <b>${r.ceiling.oursTradesPerSecond ?? "not reached"}</b> trades/s (${esc(r.ceiling.stoppedBecause)}); the chain's: <b>${r.ceiling.chain.txPerSecond}</b> tx/s; ratio <b>${r.ceiling.ratio ?? "-"}</b></p>`,
    `<h2>Exactly once: ${r.checks.ok ? "yes" : "NO"}</h2>${r.checks.problems.map((p) => `<p>${esc(p)}</p>`).join("")}<pre>${esc(JSON.stringify({ trades: r.checks.trades, launches: r.checks.launches, webhooks: r.checks.webhooks }, null, 1))}</pre>`,
    steps.length
      ? lineChart(
          "index lag p99 (ms) by trade rate",
          "trades/s",
          rates,
          [{ name: "lag p99", ys: steps.map((s) => s.lagMs.p99) }],
          r.ceiling.lagLimitMs,
        )
      : "",
    steps.length
      ? lineChart(
          "read p99 (ms) by trade rate",
          "trades/s",
          rates,
          routes.map((k) => ({ name: k, ys: steps.map((s) => s.readsMs[k]?.p99 ?? null) })),
        )
      : "",
    steps.length
      ? lineChart("delivery p99 (ms) by trade rate", "trades/s", rates, [
          { name: "WebSocket", ys: steps.map((s) => s.wsMs.p99) },
          { name: "webhook", ys: steps.map((s) => s.webhookMs.p99) },
        ])
      : "",
    ...timelineCharts(r),
    `<h2>Steps</h2>${table(steps.map((s) => ({ "asked/s": s.askedPerSecond, "mined/s": s.tradesPerSecond, "lag p50": s.lagMs.p50, "lag p99": s.lagMs.p99, "ws p99": s.wsMs.p99, "webhook p99": s.webhookMs.p99, pass: s.pass, why: s.why })))}`,
    `<h2>Reads (ms), idle and over the run</h2>${table(routes.map((k) => ({ route: k, "idle p50": r.idle.readsMs[k]?.p50, "idle p99": r.idle.readsMs[k]?.p99, "run p50": r.totals.readsMs[k]?.p50, "run p99": r.totals.readsMs[k]?.p99, n: r.totals.readsMs[k]?.n })))}`,
    `<h2>Launch answers (ms)</h2>${table([r.totals.launchMs as unknown as Record<string, unknown>])}`,
    barChart(
      "CPU per role (cores) under load",
      Object.entries(r.roles).map(([k, v]) => [k, v.cores]),
      "cores",
    ),
    barChart(
      "memory per role (MB)",
      Object.entries(r.roles).map(([k, v]) => [k, v.rssMb]),
      "MB",
    ),
    barChart(
      "RPC calls a day by method (at this run's rate)",
      Object.entries(r.rpc.perDay)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12),
      "calls",
    ),
    `<p>RPC: ${r.rpc.price.callsPerDay.toLocaleString("en")} calls a day, ${r.rpc.price.cusPerMonth.toLocaleString("en")} CUs a month: about USD ${r.rpc.price.usdPerMonthShared} a month (shared plan) or ${r.rpc.price.usdPerMonthPerCall} (per call). Sources: ${esc(r.rpc.price.sources.cus)}, ${esc(r.rpc.price.sources.price)} (read ${r.rpc.price.sources.read}).</p>`,
    `<h2>Postgres</h2><p>${r.postgres.perDay.rows.toLocaleString("en")} rows and ${(r.postgres.perDay.bytes / 1e9).toFixed(2)} GB a day; ${(r.postgres.perMonth.bytes / 1e9).toFixed(1)} GB a month at this run's rate.</p>${table(r.postgres.tables)}`,
    r.statements.length
      ? `<h2>Where the database's time went (pg_stat_statements, over the load)</h2>${table(r.statements.map((x) => ({ "total ms": x.totalMs, calls: x.calls, "mean ms": x.meanMs, rows: x.rows, statement: x.query })))}`
      : "",
    `<h2>Pollers</h2><pre>${esc(JSON.stringify(r.pollers, null, 1)).slice(0, 4000)}</pre>`,
  ];
  writeFileSync(
    html,
    `<!doctype html><meta charset="utf-8"><title>load ${esc(r.startedAt)}</title><style>body{font:14px system-ui;max-width:960px;margin:2em auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px}figure{margin:1em 0}</style>${body.join("\n")}`,
  );
  return { json, html };
}
