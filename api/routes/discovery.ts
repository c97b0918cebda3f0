import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import type { AppEnv } from "../env.ts";
import { COMMON_ERRORS } from "../schemas.ts";
import type { ApiSettings } from "../settings.ts";

const AGENT_MD = join(import.meta.dirname, "..", "AGENT.md");

/**
 * The integration spec with this deployment's addresses in place of its placeholders.
 *
 * @example
 * renderAgentSpec(settings).startsWith("# Launchpad agent integration spec"); // true
 */
export function renderAgentSpec(s: ApiSettings): string {
  return readFileSync(AGENT_MD, "utf8")
    .replaceAll("{base_url}", s.apiUrl)
    .replaceAll("{ws_url}", s.wsUrl)
    .replaceAll("{web_url}", s.webUrl);
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

/** `GET /AGENT.md` and the interactive reference `GET /docs` (over `/openapi.json`). */
export function registerDiscovery(app: OpenAPIHono<AppEnv>, s: ApiSettings) {
  const text = renderAgentSpec(s);
  app.openapi(agentMdRoute, (c) =>
    c.body(text, 200, { "content-type": "text/markdown; charset=utf-8" }),
  );
  // The page loads its renderer from a CDN in the browser; the API serves only the HTML.
  app.get("/docs", Scalar({ url: "/openapi.json", pageTitle: "Launchpad API" }));
}
