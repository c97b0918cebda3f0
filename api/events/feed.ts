import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import {
  COMMON_ERRORS,
  cursorList,
  ErrorEnvelope,
  jsonResponse,
  okEnvelope,
} from "../http/schemas.ts";
import { isOperatorToken } from "../middleware/agent-auth/index.ts";
import { type FeedFilter, readFeed, readStats } from "./feed-store.ts";
import { AgentEventItem, AgentPath, EventStats, FeedQuery, TradesQuery } from "./schemas.ts";

const OPERATOR =
  "Send `Authorization: Bearer <ADMIN_TOKEN>` (operator token) for `visibility=internal`.";
const errors = {
  401: jsonResponse("visibility=internal without the operator token", ErrorEnvelope),
  404: jsonResponse("No agent has this token address", ErrorEnvelope),
  ...COMMON_ERRORS,
};

const feedRoute = createRoute({
  method: "get",
  path: "/v2/agents/{tokenAddress}/events",
  tags: ["events"],
  summary: "The agent's activity feed, newest first",
  description: `Everything the agent did or had done to it: webhooks (signer, inference cloud, code host, internal) and chain events (source evm-indexer:bsc). Cursor-paged by (occurredAt, id) descending: pages stay stable while new events arrive. \`text\` is rendered at read time. ${OPERATOR}`,
  request: { params: AgentPath, query: FeedQuery },
  responses: {
    200: jsonResponse("A page of events", okEnvelope(cursorList(AgentEventItem))),
    ...errors,
  },
});

const tradesRoute = createRoute({
  method: "get",
  path: "/v2/agents/{tokenAddress}/activity-trades",
  tags: ["events"],
  summary: "The trading subset of the feed (category trading), newest first",
  request: { params: AgentPath, query: TradesQuery },
  responses: {
    200: jsonResponse("A page of trade events", okEnvelope(cursorList(AgentEventItem))),
    ...errors,
  },
});

const statsRoute = createRoute({
  method: "get",
  path: "/v2/agents/{tokenAddress}/events/stats",
  tags: ["events"],
  summary: "Event counts per type, source and category",
  description: "Public events; every visibility with the operator token.",
  request: { params: AgentPath },
  responses: { 200: jsonResponse("Counts", okEnvelope(EventStats)), ...errors },
});

/**
 * `GET /v2/agents/{tokenAddress}/events`, `/events/stats` and `/activity-trades`, from
 * `app.agent_events` (docs/events.md).
 *
 * @example
 * registerEvents(app, { sql, adminToken });
 */
export function registerEvents(app: OpenAPIHono<AppEnv>, d: { sql: Sql; adminToken?: string }) {
  const operator = (c: Context<AppEnv>) =>
    isOperatorToken(d.adminToken, c.req.header("authorization"));
  const feed = async (c: Context<AppEnv>, tokenAddress: string, f: Omit<FeedFilter, "agentId">) => {
    if (f.visibility === "internal" && !operator(c)) {
      throw new HttpError("not_authenticated", {
        message: "visibility=internal needs the operator token",
      });
    }
    const agentId = await agentOf(d.sql, tokenAddress);
    return readFeed(d.sql, { ...f, agentId });
  };
  app.openapi(feedRoute, async (c) => {
    const { tokenAddress } = c.req.valid("param");
    return c.json(
      { ok: true as const, data: await feed(c, tokenAddress, c.req.valid("query")) },
      200,
    );
  });
  app.openapi(tradesRoute, async (c) => {
    const { tokenAddress } = c.req.valid("param");
    const q = c.req.valid("query");
    return c.json(
      { ok: true as const, data: await feed(c, tokenAddress, { ...q, category: "trading" }) },
      200,
    );
  });
  app.openapi(statsRoute, async (c) => {
    const agentId = await agentOf(d.sql, c.req.valid("param").tokenAddress);
    const visibility = operator(c)
      ? (["public", "hidden", "internal"] as const)
      : (["public"] as const);
    return c.json(
      { ok: true as const, data: await readStats(d.sql, agentId, [...visibility]) },
      200,
    );
  });
}

async function agentOf(sql: Sql, tokenAddress: string): Promise<string> {
  const [row] = await sql<{ agent_id: string }[]>`
    select agent_id from app.agents where token_address = ${tokenAddress}`;
  if (!row) throw new HttpError("not_found", { message: `no agent has token ${tokenAddress}` });
  return row.agent_id;
}
