import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { PledgeTerms } from "../../lib/policy/pledge.ts";
import { type LaunchMcpParameters, restTool } from "./mcp-rest.ts";

const Agent = z
  .string()
  .min(1)
  .max(64)
  .describe("the agent's id or its token address (the `{agent}` of the REST path)");

/**
 * The agent's sell pledge as MCP tools, calling `GET` and `PUT /v2/agents/{agent}/pledge` with the
 * session's agent key, so answers and refusals are the REST ones (api/AGENT.md "Your sell
 * pledge").
 *
 * @example
 * registerPledgeTools(server, { call, apiKey });
 */
export function registerPledgeTools(server: McpServer, p: LaunchMcpParameters): void {
  const path = (agent: string) => `/v2/agents/${encodeURIComponent(agent)}/pledge`;
  server.registerTool(
    "get_sell_pledge",
    {
      title: "Read the agent's sell pledge",
      description:
        "The sell pledge in force, a loosening waiting for its delay (and when it binds), lockedUntil, what was sold today and every version. Open to anyone.",
      inputSchema: { agent: Agent },
    },
    ({ agent }) => restTool(p, "GET", path(agent)),
  );
  server.registerTool(
    "set_sell_pledge",
    {
      title: "Pledge how much of its own token the agent may sell",
      description:
        "Saves the agent's public sell pledge: no sale for `lockDays` after launch, at most `maxDailySellPercent` of its holding sold in a UTC day, and `loosenDelayDays` (default 7) that a later loosening must wait. A stricter term binds at once; if any term is looser, the new terms bind only after the delay of the pledge in force (answered as `pending`). The signer refuses any sale over the pledge. Authenticate the MCP session with the agent key.",
      inputSchema: { agent: Agent, ...PledgeTerms.shape },
    },
    ({ agent, ...terms }) => restTool(p, "PUT", path(agent), terms),
  );
}
