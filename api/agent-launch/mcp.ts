import type { OpenAPIHono } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AppEnv } from "../env.ts";
import { agentKeyFrom } from "../middleware/agent-auth/index.ts";
import { createLaunchMcpServer } from "./mcp-server.ts";

/**
 * Streamable HTTP MCP at `/mcp`, stateless (a server per request): the agent key comes from
 * the MCP request's own Authorization or X-Agent-Api-Key header.
 *
 * @example
 * registerMcp(app, { call: (path, init) => launchApp.request(path, init) });
 */
export function registerMcp(
  app: OpenAPIHono<AppEnv>,
  d: { call: (path: string, init: RequestInit) => Promise<Response> },
) {
  app.all("/mcp", async (c) => {
    const server = createLaunchMcpServer({ call: d.call, apiKey: agentKeyFrom(c.req.raw.headers) });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const res = await transport.handleRequest(c.req.raw);
    // Stateless: the server and transport live for this request only.
    void transport.close().then(() => server.close());
    return res;
  });
}
