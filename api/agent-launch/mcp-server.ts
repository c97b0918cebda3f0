import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { LaunchRequestShape } from "./schema.ts";

export type LaunchMcpParameters = {
  /** Performs an HTTP request against the launch API (in-process app, or the remote API). */
  call: (path: string, init: RequestInit) => Promise<Response>;
  /** The agent key this session authenticates with (MCP request header, or AGENT_API_KEY). */
  apiKey?: string;
};

/**
 * The MCP server of the launchpad: tool `launch_agent` (input = LaunchRequest; it calls
 * `POST /v2/agents/launch` with the session's agent key, so results and errors are exactly
 * the REST ones) and resource `service://AGENT.md` (the live integration spec).
 *
 * @example
 * const server = createLaunchMcpServer({ call: (p, i) => fetch(apiUrl + p, i), apiKey });
 */
export function createLaunchMcpServer(p: LaunchMcpParameters): McpServer {
  const server = new McpServer({ name: "launchpad", version: "1.0.0" });
  server.registerTool(
    "launch_agent",
    {
      title: "Launch agent token",
      description:
        "Launch the authenticated agent's token on BSC (chain 56): wallet, treasury Safe, ERC-8004 identity and a 2%/2% tax token. Once per agent. Authenticate the MCP session with the agent key (Authorization: Bearer agk_...). A failed launch answers a fixed detail and a launchId: retry as it says, then quote the launchId to the operator.",
      inputSchema: LaunchRequestShape,
    },
    async (args) => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (p.apiKey) headers.authorization = `Bearer ${p.apiKey}`;
      const res = await p.call("/v2/agents/launch", {
        method: "POST",
        headers,
        body: JSON.stringify(args),
      });
      const body = (await res
        .json()
        .catch(() => ({ ok: false, error: "ORCHESTRATOR_UNAVAIL" }))) as Record<string, unknown>;
      const result = { status: res.status, ...body };
      return {
        content: [{ type: "text" as const, text: JSON.stringify(result) }],
        structuredContent: result,
        isError: body.ok !== true,
      };
    },
  );
  server.registerResource(
    "agent-spec",
    "service://AGENT.md",
    {
      title: "Agent integration spec",
      description: "The live AGENT.md of this service",
      mimeType: "text/markdown",
    },
    async (uri) => {
      const res = await p.call("/AGENT.md", { method: "GET" });
      return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: await res.text() }] };
    },
  );
  return server;
}
