import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import type { WebhookSecrets } from "../../lib/events/webhook-secrets.ts";
import type { AppEnv } from "../env.ts";
import { registerEvents } from "./feed.ts";
import { registerWebhooks } from "./inbound/routes.ts";

/**
 * Signed inbound webhooks, the way events come in. Registered before the per-client limiter:
 * they are authenticated per request and come in bursts from a few senders.
 */
export function registerInbound(
  app: OpenAPIHono<AppEnv>,
  d: { sql: Sql; secrets?: WebhookSecrets },
) {
  if (d.secrets) registerWebhooks(app, { sql: d.sql, secrets: d.secrets });
}

/** The agent event feed, its trade activity and stats (after the limiter). */
export function registerEventFeed(app: OpenAPIHono<AppEnv>, d: { sql: Sql; adminToken?: string }) {
  registerEvents(app, d);
}
