import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { registerWebhookSubscriptions, type WebhookSubscriptionDeps } from "./subscriptions.ts";

export type { WebhookSubscriptionDeps };

/** Outbound webhooks: an agent's subscriptions, their deliveries, tests and redeliveries. */
export function registerOutboundWebhooks(app: OpenAPIHono<AppEnv>, d: WebhookSubscriptionDeps) {
  registerWebhookSubscriptions(app, d);
}
