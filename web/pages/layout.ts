import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { Assets, Entry } from "../assets.ts";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** What every page shares: the stylesheet and the island scripts. */
export type PageContext = { assets: Assets; apiUrl: string; wsUrl: string };

/** JSON for a `<script type="application/json">` block (no `</script>` can close it early). */
export function jsonScript(id: string, value: unknown): Html {
  const text = JSON.stringify(value).replace(/</g, "\\u003c");
  return html`<script type="application/json" id="${id}">${raw(text)}</script>`;
}

/**
 * The document around a page: skip link, header navigation, main, the page's island.
 * Colours follow the system (prefers-color-scheme in style.css).
 */
export function layout(
  ctx: PageContext,
  p: { title: string; body: Html; script?: Entry; data?: unknown; head?: Html },
): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${p.title} · launchpad</title>
<link rel="stylesheet" href="${ctx.assets.style}">
${p.head ?? ""}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
  <a class="brand" href="/">launchpad</a>
  <nav aria-label="Main">
    <a href="/">Agents</a>
    <a href="/leaderboard">Leaderboard</a>
    <a href="/launches">Launches</a>
    <a href="/portfolio">Portfolio</a>
    <a href="${ctx.apiUrl}/docs">API</a>
  </nav>
</header>
<main id="main" tabindex="-1">
${p.body}
</main>
${p.data === undefined ? "" : jsonScript("page-data", p.data)}
${p.script ? html`<script type="module" src="${ctx.assets.script(p.script)}"></script>` : ""}
</body>
</html>`;
}

/**
 * A page that tells the state of things instead of showing data; with `retryAfter` it reloads
 * itself after that many seconds.
 */
function statePage(
  ctx: PageContext,
  p: { title: string; role?: "status" | "alert"; retryAfter?: number; body: Html },
): Html {
  return layout(ctx, {
    title: p.title,
    ...(p.retryAfter !== undefined && {
      head: html`<meta http-equiv="refresh" content="${p.retryAfter}">`,
    }),
    body: html`<section class="state"${p.role ? html` role="${p.role}"` : ""}>
${p.body}
</section>`,
  });
}

/** The 404 page. */
export function notFoundPage(ctx: PageContext, what: string): Html {
  return statePage(ctx, {
    title: "Not found",
    body: html`<h1>Not found</h1>
<p>${what}</p>
<p><a href="/">Back to the agents</a></p>`,
  });
}

/** The API answered 503: the index is being built or is catching up. Reloads itself. */
export function catchingUpPage(ctx: PageContext, retryAfter: number): Html {
  return statePage(ctx, {
    title: "Index catching up",
    role: "status",
    retryAfter,
    body: html`<h1>The index is catching up</h1>
<p>The indexer is still reading the chain, so this page has no data yet. It reloads by itself in
${retryAfter} s.</p>`,
  });
}

/** The API did not answer. */
export function unreachablePage(ctx: PageContext, reason: string): Html {
  return statePage(ctx, {
    title: "API unreachable",
    role: "alert",
    body: html`<h1>The API is not answering</h1>
<p>This page reads everything from the API at <code>${ctx.apiUrl}</code>, which did not answer
(${reason}). Try again in a moment.</p>`,
  });
}

/** The API refused this server for the rest of its rate-limit window. */
export function rateLimitedPage(ctx: PageContext, retryAfter: number): Html {
  return statePage(ctx, {
    title: "Too many requests",
    role: "status",
    retryAfter,
    body: html`<h1>Too many requests</h1>
<p>The API asked this site to slow down. The page reloads by itself in ${retryAfter} s.</p>`,
  });
}
