import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import type { WebhookSecrets } from "../../lib/webhooks/inbound/webhook-secrets.ts";
import type { AppEnv } from "../env.ts";
import { registerWebhooks } from "./inbound/routes.ts";
import {
  registerWebhookSubscriptions,
  type WebhookSubscriptionDeps,
} from "./outbound/subscriptions.ts";

export type { WebhookSubscriptionDeps };

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

/** Outbound webhooks: an agent's subscriptions, their deliveries, tests and redeliveries. */
export function registerOutboundWebhooks(app: OpenAPIHono<AppEnv>, d: WebhookSubscriptionDeps) {
  registerWebhookSubscriptions(app, d);
}
