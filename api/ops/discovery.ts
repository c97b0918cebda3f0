import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { formatEther } from "viem";
import { DEFAULT_TOKEN_TERMS, describeTerms } from "../../lib/token-terms.ts";
import type { AppEnv } from "../env.ts";
import { COMMON_ERRORS } from "../http/schemas.ts";
import type { ApiSettings } from "../settings.ts";

const AGENT_MD = join(import.meta.dirname, "..", "AGENT.md");

/** The integration spec with this deployment's addresses in place of its placeholders. */
export function renderAgentSpec(s: ApiSettings): string {
  return readFileSync(AGENT_MD, "utf8")
    .replaceAll("{base_url}", s.apiUrl)
    .replaceAll("{ws_url}", s.wsUrl)
    .replaceAll("{web_url}", s.webUrl)
    .replaceAll("{token_terms}", describeTerms(s.tokenTerms ?? DEFAULT_TOKEN_TERMS))
    .replaceAll("{first_buy_max}", describeFirstBuyCap(s.firstBuyMaxWei ?? 0n));
}

/** The first-buy cap as AGENT.md states it: wei and BNB, or that first buys are off. */
function describeFirstBuyCap(wei: bigint): string {
  return wei === 0n
    ? "`0`: first buys are off at this service"
    : `\`"${wei}"\` (${formatEther(wei)} BNB), this service's cap`;
}

const agentMdRoute = createRoute({
  method: "get",
  path: "/AGENT.md",
  tags: ["discovery"],
  summary: "The agent integration spec (Markdown, version 1.0.0; the live copy is canonical)",
  responses: {
    200: {
      description: "The spec",
      content: { "text/markdown": { schema: z.string() } },
    },
    429: COMMON_ERRORS[429],
  },
});

/**
 * Scalar's browser bundle for `/docs`, pinned to one version and checked by the browser
 * (Subresource Integrity): the CDN can serve this exact file or nothing, so no later release
 * or compromise of the package runs script on the API's origin. To move to another version,
 * take the hash of `dist/browser/standalone.js` from its npm tarball (`npm pack`).
 */
export const DOCS_RENDERER = {
  src: "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1/dist/browser/standalone.js",
  integrity: "sha384-U11tb2XnKvmwt8RlTvnwUnYgrN+ur4Xyh9htLhjajWNR/Oyl5AX5DEz00qRmlrmK",
} as const;

/** The reference page: the renderer reads `/openapi.json` from this origin. */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Launchpad API</title>
  </head>
  <body>
    <script id="api-reference" data-url="/openapi.json"></script>
    <script src="${DOCS_RENDERER.src}" integrity="${DOCS_RENDERER.integrity}" crossorigin="anonymous"></script>
  </body>
</html>
`;

/** `GET /AGENT.md` and the interactive reference `GET /docs` (over `/openapi.json`). */
export function registerDiscovery(app: OpenAPIHono<AppEnv>, s: ApiSettings) {
  const text = renderAgentSpec(s);
  app.openapi(agentMdRoute, (c) =>
    c.body(text, 200, { "content-type": "text/markdown; charset=utf-8" }),
  );
  // The page loads its renderer from a CDN in the browser; the API serves only the HTML.
  app.get("/docs", (c) => c.html(DOCS_PAGE));
}
