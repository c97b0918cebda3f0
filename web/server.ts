import type { Server } from "node:http";
import { type Context, Hono } from "hono";
import { compress } from "hono/compress";
import { secureHeaders } from "hono/secure-headers";
import { toFunctionSelector } from "viem";
import { launchVaultAbi } from "../abis/LaunchVault.ts";
import { EVENT_CATEGORIES } from "../lib/events/store.ts";
import { serveHttp } from "../lib/http/serve.ts";
import type { Logger } from "../lib/logger.ts";
import { ApiStateError, apiClient, type Get, must, optional, orNull } from "./api-client.ts";
import { type Assets, loadAssets } from "./assets.ts";
import { agentHolderReads, walletDividends } from "./holder-reads.ts";
import { WEB_LIMITS } from "./limits.ts";
import { agentPage } from "./pages/agent.ts";
import { HOME_SORTS, type HomeSort, homePage } from "./pages/home.ts";
import { launchesPage, launchPage } from "./pages/launches.ts";
import {
  catchingUpPage,
  type Html,
  notFoundPage,
  type PageContext,
  rateLimitedPage,
  unreachablePage,
} from "./pages/layout.ts";
import { LEADERBOARD_SORTS, type LeaderboardSort, leaderboardPage } from "./pages/leaderboard.ts";
import { portfolioPage } from "./pages/portfolio.ts";
import type { FeedItem, MarketTradeItem, TradeItem } from "./rows.ts";
import type {
  AgentDetail,
  AgentSummary,
  BurnRate,
  CursorList,
  Depositor,
  Holdings,
  Launch,
  LaunchReport,
  NavPoint,
  OffsetList,
  PerpsAccount,
  PlatformStats,
  TokenRecord,
  UserLaunch,
} from "./types.ts";
import { visitorLimit } from "./visitor-limit.ts";

export type WebSettings = {
  /** The API as the browser reaches it (CORS allows WEB_URL's origin there). */
  apiUrl: string;
  wsUrl: string;
  /** The API as this server reaches it (defaults to apiUrl). */
  internalApiUrl?: string;
  /** Sent as `X-Service-Key` on this server's reads: the web role's own budget at the API. */
  serviceKey?: string;
  /** Page views per minute per visitor address (WEB_RATE_LIMIT_PER_MINUTE; 0: unlimited). */
  visitorsPerMinute?: number;
  /** Proxies in front of the web app whose `X-Forwarded-For` entries are trusted. */
  trustProxy?: number;
};

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const LAUNCH_ID = /^[0-9]{1,20}$/;

/** The featured agent's slug (`/a/<slug>`): its name in lower case, words joined by `-`. */
export function slugOf(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "") // accents off: "Ü" -> "U"
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

const vaultFn = (name: string) => {
  const item = launchVaultAbi.find((x) => x.type === "function" && x.name === name);
  if (item?.type !== "function") throw new Error(`LaunchVault has no ${name}`);
  return toFunctionSelector(item);
};
/** Call data prefixes of the vault functions the launch page's buttons send. */
const SELECTORS = {
  deposit: vaultFn("deposit"),
  withdraw: vaultFn("withdraw"),
  claim: vaultFn("claim"),
  refund: vaultFn("refund"),
  deposits: vaultFn("deposits"),
};

function pageNumber(v: string | undefined): number {
  const n = Number(v ?? "1");
  return Number.isInteger(n) && n >= 1 && n <= 10_000 ? n : 1;
}

/**
 * The web app: server-rendered pages over the API's public REST interface, with the browser
 * islands (chart, live lists, wallet) served from `assets`.
 */
export function createWebApp(s: WebSettings, assets: Assets, log?: Logger) {
  const get: Get = apiClient(s.internalApiUrl ?? s.apiUrl, s.serviceKey);
  const ctx: PageContext = { assets, apiUrl: s.apiUrl.replace(/\/$/, ""), wsUrl: s.wsUrl };
  const app = new Hono();

  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", "https:", "http:", "data:"],
        connectSrc: ["'self'", new URL(ctx.apiUrl).origin, new URL(s.wsUrl).origin],
        frameAncestors: ["'none'"],
      },
      crossOriginEmbedderPolicy: false,
    }),
  );
  app.use(compress());

  app.get("/assets/:name", (c) => {
    const a = assets.byName.get(c.req.param("name"));
    if (!a) return c.text("not found", 404);
    return c.body(new Uint8Array(a.body), 200, {
      "content-type": a.type,
      "cache-control": "public, max-age=31536000, immutable",
    });
  });
  app.get("/health", (c) => c.json({ ok: true }));
  // Pages only (assets and health above are not counted).
  app.use(
    visitorLimit({
      perMinute: s.visitorsPerMinute ?? 0,
      trustProxy: s.trustProxy ?? 0,
      limited: async (c, retryAfter) =>
        c.html(await rateLimitedPage(ctx, retryAfter), 429, { "retry-after": String(retryAfter) }),
    }),
  );

  const page = async (c: Context, render: () => Promise<Html | Response>) => {
    try {
      const out = await render();
      return out instanceof Response ? out : c.html(out);
    } catch (error) {
      if (!(error instanceof ApiStateError)) throw error;
      const a = error.answer;
      if (a.kind === "not_found")
        return c.html(await notFoundPage(ctx, "The API has no such record."), 404);
      if (a.kind === "rate_limited")
        return c.html(await rateLimitedPage(ctx, a.retryAfter), 429, {
          "retry-after": String(a.retryAfter),
        });
      if (a.kind === "catching_up")
        return c.html(await catchingUpPage(ctx, a.retryAfter), 503, {
          "retry-after": String(a.retryAfter),
        });
      log?.warn({ reason: a.reason }, "api unreachable");
      return c.html(await unreachablePage(ctx, a.reason), 502);
    }
  };

  app.get("/", (c) =>
    page(c, async () => {
      const sort = (c.req.query("sort") ?? "trending") as HomeSort;
      const chosen: HomeSort = sort in HOME_SORTS ? sort : "trending";
      const p = pageNumber(c.req.query("page"));
      const size = WEB_LIMITS.pageSize;
      const [tokens, featured, launches, stats, trades, named] = await Promise.all([
        get<OffsetList<TokenRecord>>(
          `/tokens?sort=${chosen}&limit=${size}&offset=${(p - 1) * size}`,
        ),
        get<OffsetList<AgentSummary>>("/v2/agents?featured=true&limit=1"),
        get<OffsetList<Launch>>("/v2/launches?limit=6"),
        get<PlatformStats>("/v2/stats"),
        get<CursorList<MarketTradeItem>>(`/v2/trades?limit=${WEB_LIMITS.tickerSize}`),
        // The ticker names tokens by symbol: the most traded ones are known up front.
        get<OffsetList<TokenRecord>>("/tokens?sort=volume&limit=100"),
      ]);
      const symbols: Record<string, string> = {};
      for (const t of [...(optional(named)?.items ?? []), ...(optional(tokens)?.items ?? [])])
        if (t.symbol) symbols[t.address] = t.symbol;
      const f = optional(featured)?.items[0];
      const featuredToken = f
        ? optional(await get<TokenRecord>(`/tokens/${f.tokenAddress}`))
        : null;
      return homePage(ctx, {
        tokens: must(tokens),
        featured: f ? { agent: f, token: featuredToken } : null,
        launches: optional(launches)?.items ?? [],
        sort: chosen,
        page: p,
        stats: optional(stats),
        trades: optional(trades)?.items ?? [],
        symbols,
      });
    }),
  );

  app.get("/leaderboard", (c) =>
    page(c, async () => {
      const asked = c.req.query("sort") ?? "runwayDays";
      const sort = (asked in LEADERBOARD_SORTS ? asked : "runwayDays") as LeaderboardSort;
      const order = c.req.query("order") === "asc" ? "asc" : "desc";
      const p = pageNumber(c.req.query("page"));
      const size = WEB_LIMITS.pageSize;
      const agents = must(
        await get<OffsetList<AgentSummary>>(
          `/v2/agents?sort=${sort}&order=${order}&limit=${size}&offset=${(p - 1) * size}`,
        ),
      );
      return leaderboardPage(ctx, { agents, sort, order, page: p });
    }),
  );

  const renderAgent = async (c: Context, token: string) => {
    const address = token.toLowerCase();
    const holders = agentHolderReads(get, address);
    // All side by side (one round trip of latency): the agent's sections answer 404 for a
    // token no agent launched, which leaves them out.
    const [agent, record, trades, feed, holdings, burn, nav, perps, report] = await Promise.all([
      get<AgentDetail>(`/v2/agents/${address}`),
      get<TokenRecord>(`/tokens/${address}`),
      get<CursorList<TradeItem>>(`/tokens/${address}/trades?limit=${WEB_LIMITS.tapeSize}`),
      get<CursorList<FeedItem>>(`/v2/agents/${address}/events?limit=${WEB_LIMITS.tapeSize}`),
      get<Holdings>(`/v2/agents/${address}/holdings`),
      get<BurnRate>(`/v2/agents/${address}/burn-rate`),
      get<{ points: NavPoint[] }>(`/v2/agents/${address}/nav-history?interval=1h&range=7d`),
      get<PerpsAccount>(`/v2/agents/${address}/perps`),
      get<LaunchReport>(`/tokens/${address}/launch-report`),
    ]);
    const a = orNull(agent);
    const t = orNull(record);
    if (!a && !t)
      return c.html(await notFoundPage(ctx, `No agent or token has the address ${address}.`), 404);
    return c.html(
      await agentPage(ctx, {
        address,
        agent: a,
        token: t,
        trades: optional(trades)?.items ?? [],
        feed: optional(feed)?.items ?? [],
        holdings: optional(holdings),
        burn: optional(burn),
        perps: optional(perps),
        nav: optional(nav)?.points ?? [],
        report: optional(report),
        categories: EVENT_CATEGORIES,
        holders: await holders,
      }),
    );
  };

  app.get("/agent/:token", async (c) => {
    const token = c.req.param("token");
    if (!ADDRESS.test(token))
      return c.html(await notFoundPage(ctx, "That is not a token address."), 404);
    return page(c, () => renderAgent(c, token));
  });

  app.get("/a/:slug", (c) =>
    page(c, async () => {
      const slug = c.req.param("slug").toLowerCase();
      const f = must(await get<OffsetList<AgentSummary>>("/v2/agents?featured=true&limit=1"))
        .items[0];
      if (!f || (slugOf(f.name) !== slug && f.ticker.toLowerCase() !== slug))
        return c.html(
          await notFoundPage(
            ctx,
            "Only the featured agent has a short address, and this is not it.",
          ),
          404,
        );
      return renderAgent(c, f.tokenAddress);
    }),
  );

  app.get("/portfolio", async (c) => {
    const a = c.req.query("address");
    if (a && ADDRESS.test(a)) return c.redirect(`/portfolio/${a.toLowerCase()}`, 303);
    return c.html(await portfolioPage(ctx, null, null));
  });

  app.get("/portfolio/:address", async (c) => {
    const a = c.req.param("address");
    if (!ADDRESS.test(a)) return c.html(await notFoundPage(ctx, "That is not an address."), 404);
    return page(c, async () => {
      const dividends = walletDividends(get, a.toLowerCase());
      const list = must(
        await get<OffsetList<UserLaunch>>(
          `/v2/users/${a.toLowerCase()}/launches?limit=${WEB_LIMITS.pageSize}`,
        ),
      );
      return portfolioPage(ctx, a.toLowerCase(), list, await dividends);
    });
  });

  app.get("/launches", (c) =>
    page(c, async () => {
      const p = pageNumber(c.req.query("page"));
      const size = WEB_LIMITS.pageSize;
      const list = must(
        await get<OffsetList<Launch>>(`/v2/launches?limit=${size}&offset=${(p - 1) * size}`),
      );
      return launchesPage(ctx, list, p);
    }),
  );

  app.get("/launches/:id", async (c) => {
    const id = c.req.param("id");
    if (!LAUNCH_ID.test(id) && !ADDRESS.test(id))
      return c.html(await notFoundPage(ctx, "That is not a launch number."), 404);
    return page(c, async () => {
      const launch = must(await get<Launch>(`/v2/launches/${id.toLowerCase()}`));
      const depositors = must(
        await get<OffsetList<Depositor>>(
          `/v2/launches/${launch.id}/depositors?limit=${WEB_LIMITS.depositorsShown}`,
        ),
      );
      return launchPage(ctx, { launch, depositors, selectors: SELECTORS });
    });
  });

  app.notFound(async (c) => c.html(await notFoundPage(ctx, "There is no page here."), 404));
  app.onError((error, c) => {
    log?.error({ err: error }, "page failed");
    return c.text("internal error", 500);
  });
  return app;
}

export type StartWebParameters = WebSettings & {
  host: string;
  port: number;
  webUrl: string;
  /** The data directory: the built islands are cached under it. */
  cacheDir: string;
  logger: Logger;
};

/** Builds (or loads) the islands, then serves the web app; resolves once it listens. */
export async function startWeb(
  p: StartWebParameters,
): Promise<{ server: Server; close: () => Promise<void> }> {
  const assets = await loadAssets(p.cacheDir);
  const agentJs = assets.byName.get(assets.script("agent").slice("/assets/".length));
  p.logger.info(
    { built: assets.built, agentPageJsGzipBytes: agentJs?.gzipBytes },
    assets.built ? "web assets built" : "web assets from cache",
  );
  const app = createWebApp(p, assets, p.logger);
  const { server, close } = await serveHttp({
    fetch: app.fetch,
    host: p.host,
    port: p.port,
    keepAliveTimeoutMs: WEB_LIMITS.keepAliveTimeoutMs,
    requestTimeoutMs: WEB_LIMITS.requestTimeoutMs,
    shutdownGraceMs: WEB_LIMITS.shutdownGraceMs,
  });
  return { server, close };
}
