import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Command } from "commander";
import { createLaunchMcpServer } from "../../api/agent-launch/mcp-server.ts";
import { loadConfig } from "../../lib/config.ts";

/**
 * `launchpad mcp`: the MCP server over stdio. It talks to the running API (PUBLIC_BASE_URL or
 * HOST:PORT, or --api), authenticated with AGENT_API_KEY, so the tool's results are the API's.
 */
export function mcpCommand(): Command {
  return new Command("mcp")
    .description(
      "serve MCP over stdio (tools launch_agent, get_sell_pledge, set_sell_pledge; resource service://AGENT.md); key from AGENT_API_KEY",
    )
    .option("--api <url>", "the API's base URL (default: this configuration's)")
    .action(async (o: { api?: string }) => {
      const base = (o.api ?? loadConfig().apiUrl).replace(/\/$/, "");
      const server = createLaunchMcpServer({
        call: (path, init) => fetch(`${base}${path}`, init),
        apiKey: process.env.AGENT_API_KEY || undefined,
      });
      await server.connect(new StdioServerTransport());
    });
}
