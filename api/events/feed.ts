import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { AgentParams, cursorList, dataResponses, errorResponse } from "../http/schemas.ts";
import { isOperatorToken } from "../middleware/agent-auth/index.ts";
import { AGENT_NOT_FOUND, agentOf, agentPath } from "../middleware/agent-path/index.ts";
import { type FeedFilter, readFeed, readStats } from "./feed-store.ts";
import { AgentEventItem, EventStats, FeedQuery, TradesQuery } from "./schemas.ts";

const OPERATOR =
  "Send `Authorization: Bearer <ADMIN_TOKEN>` (operator token) for `visibility=internal`.";
const errors = {
  401: errorResponse("visibility=internal without the operator token"),
  ...AGENT_NOT_FOUND,
};

const feedRoute = createRoute({
  method: "get",
  path: "/v2/agents/{agent}/events",
  tags: ["events"],
  summary: "The agent's activity feed, newest first",
  description: `Everything the agent did or had done to it: webhooks (signer, inference cloud, code host, internal) and chain events (source evm-indexer:bsc). Cursor-paged by (occurredAt, id) descending: pages stay stable while new events arrive. \`text\` is rendered at read time. ${OPERATOR}`,
  request: { params: AgentParams, query: FeedQuery },
  responses: dataResponses("A page of events", cursorList(AgentEventItem), errors),
});

const tradesRoute = createRoute({
  method: "get",
  path: "/v2/agents/{agent}/activity-trades",
  tags: ["events"],
  summary: "The trading subset of the feed (category trading), newest first",
  request: { params: AgentParams, query: TradesQuery },
  responses: dataResponses("A page of trade events", cursorList(AgentEventItem), errors),
});

const statsRoute = createRoute({
  method: "get",
  path: "/v2/agents/{agent}/events/stats",
  tags: ["events"],
  summary: "Event counts per type, source and category",
  description: "Public events; every visibility with the operator token.",
  request: { params: AgentParams },
  responses: dataResponses("Counts", EventStats, errors),
});

/**
 * `GET /v2/agents/{agent}/events`, `/events/stats` and `/activity-trades`, from
 * `app.agent_events` (docs/events.md).
 */
export function registerEvents(app: OpenAPIHono<AppEnv>, d: { sql: Sql; adminToken?: string }) {
  const middleware = [agentPath({ sql: d.sql })];
  const operator = (c: Context<AppEnv>) =>
    isOperatorToken(d.adminToken, c.req.header("authorization"));
  const feed = async (c: Context<AppEnv>, f: Omit<FeedFilter, "agentId">) => {
    if (f.visibility === "internal" && !operator(c)) {
      throw new HttpError("not_authenticated", {
        message: "visibility=internal needs the operator token",
      });
    }
    return readFeed(d.sql, { ...f, agentId: agentOf(c).agentId });
  };
  app.openapi({ ...feedRoute, middleware }, async (c) => {
    return c.json({ ok: true as const, data: await feed(c, c.req.valid("query")) }, 200);
  });
  app.openapi({ ...tradesRoute, middleware }, async (c) => {
    const q = c.req.valid("query");
    return c.json({ ok: true as const, data: await feed(c, { ...q, category: "trading" }) }, 200);
  });
  app.openapi({ ...statsRoute, middleware }, async (c) => {
    const { agentId } = agentOf(c);
    const visibility = operator(c)
      ? (["public", "hidden", "internal"] as const)
      : (["public"] as const);
    return c.json(
      { ok: true as const, data: await readStats(d.sql, agentId, [...visibility]) },
      200,
    );
  });
}
