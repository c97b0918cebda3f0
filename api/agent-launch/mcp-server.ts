import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerPledgeTools } from "./mcp-pledge.ts";
import { type LaunchMcpParameters, restTool } from "./mcp-rest.ts";
import { LaunchRequestShape } from "./schema.ts";

/**
 * The MCP server of the launchpad: tool `launch_agent` (input = LaunchRequest; it calls
 * `POST /v2/agents/launch` with the session's agent key, so results and errors are exactly
 * the REST ones), the sell pledge's `get_sell_pledge` and `set_sell_pledge` (the same way, over
 * `/v2/agents/{agent}/pledge`) and resource `service://AGENT.md` (the live integration spec).
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
    (args) => restTool(p, "POST", "/v2/agents/launch", args),
  );
  registerPledgeTools(server, p);
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
