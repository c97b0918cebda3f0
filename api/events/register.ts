import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { registerEvents } from "./feed.ts";

/** The agent event feed, its trade activity and stats (after the limiter). */
export function registerEventFeed(app: OpenAPIHono<AppEnv>, d: { sql: Sql; adminToken?: string }) {
  registerEvents(app, d);
}
