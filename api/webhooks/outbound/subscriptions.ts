import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../../lib/db/client.ts";
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listSubscriptions,
  rotateSecret,
  type SubscriptionRow,
  updateSubscription,
} from "../../../lib/webhooks/outbound/subscriptions.ts";
import { webhookUrlProblem } from "../../../lib/webhooks/outbound/url.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";
import {
  AgentParams,
  errorResponse,
  jsonBody,
  jsonResponse,
  okEnvelope,
} from "../../http/schemas.ts";
import { agentOwner } from "../../middleware/agent-owner/index.ts";
import { agentOf } from "../../middleware/agent-path/index.ts";
import { registerWebhookDeliveries } from "./deliveries.ts";
import {
  CreateSubscriptionBody,
  SUBSCRIPTION_PATH,
  SUBSCRIPTIONS_PATH,
  SubParams,
  Subscription,
  SubscriptionWithSecret,
  subscriptionOf,
  UpdateSubscriptionBody,
  WEBHOOK_ERRORS,
  webhookRoute,
} from "./schemas.ts";

/** What the webhook subscription routes need. */
export type WebhookSubscriptionDeps = {
  sql: Sql;
  /** Seals signing secrets at rest. */
  secretsKey: Buffer;
  /** Origins exempt from the https and public-address rules (local mode only). */
  trustedOrigins: readonly string[];
  adminToken?: string;
};

export function subscriptionView(s: SubscriptionRow) {
  return {
    subscriptionId: s.subscriptionId,
    agentId: s.agentId,
    url: s.url,
    eventTypes: s.eventTypes,
    sources: s.sources,
    categories: s.categories,
    description: s.description,
    enabled: s.enabled,
    disabledReason: s.disabledReason,
    disabledAt: s.disabledAt?.toISOString() ?? null,
    previousSecretExpiresAt:
      s.previousSecret && s.previousSecretUntil && s.previousSecretUntil > new Date()
        ? s.previousSecretUntil.toISOString()
        : null,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

async function checkUrl(url: string, d: WebhookSubscriptionDeps) {
  const problem = await webhookUrlProblem(url, d.trustedOrigins);
  if (problem) {
    throw new HttpError("validation_failed", {
      message: `url: ${problem}`,
      details: [{ path: "url", message: problem }],
    });
  }
}

/**
 * Outbound webhook subscriptions of an agent (`/v2/agents/{agent}/webhooks`): the agent's
 * own key or the operator token. Creation answers the signing secret once; the URL is checked
 * (https, public address) here and again at every delivery. Deliveries: webhook-deliveries.ts.
 */
export function registerWebhookSubscriptions(app: OpenAPIHono<AppEnv>, d: WebhookSubscriptionDeps) {
  const auth = agentOwner({ sql: d.sql, adminToken: d.adminToken });
  app.use("/v2/agents/:agent/webhooks", auth);
  app.use("/v2/agents/:agent/webhooks/*", auth);

  app.openapi(
    webhookRoute({
      method: "post",
      path: SUBSCRIPTIONS_PATH,
      summary: "Subscribe a URL to the agent's events (at most 10 per agent)",
      description:
        "Answers the subscription with its signing secret, shown only here. Deliveries are Standard Webhooks: see GET /AGENT.md, Outbound webhooks.",
      request: {
        params: AgentParams,
        body: jsonBody(CreateSubscriptionBody),
      },
      responses: {
        201: jsonResponse("Subscribed", okEnvelope(SubscriptionWithSecret)),
        409: errorResponse("conflict: the agent has 10 subscriptions already"),
        ...WEBHOOK_ERRORS,
      },
    }),
    async (c) => {
      const { agentId } = agentOf(c);
      const b = c.req.valid("json");
      await checkUrl(b.url, d);
      const { subscription, secret } = await createSubscription(d.sql, d.secretsKey, {
        agentId,
        url: b.url,
        eventTypes: b.eventTypes ?? null,
        sources: b.sources ?? null,
        categories: b.categories ?? null,
        description: b.description ?? null,
      });
      return c.json(
        { ok: true as const, data: { ...subscriptionView(subscription), secret } },
        201,
      );
    },
  );

  app.openapi(
    webhookRoute({
      method: "get",
      path: SUBSCRIPTIONS_PATH,
      summary: "The agent's webhook subscriptions, oldest first",
      request: { params: AgentParams },
      responses: {
        200: jsonResponse("Subscriptions", okEnvelope(z.object({ items: z.array(Subscription) }))),
        ...WEBHOOK_ERRORS,
      },
    }),
    async (c) => {
      const { agentId } = agentOf(c);
      const items = (await listSubscriptions(d.sql, agentId)).map(subscriptionView);
      return c.json({ ok: true as const, data: { items } }, 200);
    },
  );

  app.openapi(
    webhookRoute({
      method: "get",
      path: SUBSCRIPTION_PATH,
      summary: "One webhook subscription",
      request: { params: SubParams },
      responses: {
        200: jsonResponse("The subscription", okEnvelope(Subscription)),
        ...WEBHOOK_ERRORS,
      },
    }),
    async (c) => {
      const { agentId, subscriptionId } = subscriptionOf(c);
      const s = await getSubscription(d.sql, agentId, subscriptionId);
      return c.json({ ok: true as const, data: subscriptionView(s) }, 200);
    },
  );

  app.openapi(
    webhookRoute({
      method: "patch",
      path: SUBSCRIPTION_PATH,
      summary: "Change a subscription's URL, filters, description or enabled",
      description:
        "`enabled: true` re-enables a subscription disabled by you, by a 410 or by 24 h of failures; its pending deliveries resume.",
      request: {
        params: SubParams,
        body: jsonBody(UpdateSubscriptionBody),
      },
      responses: {
        200: jsonResponse("The subscription", okEnvelope(Subscription)),
        ...WEBHOOK_ERRORS,
      },
    }),
    async (c) => {
      const { agentId, subscriptionId } = subscriptionOf(c);
      const b = c.req.valid("json");
      await getSubscription(d.sql, agentId, subscriptionId);
      if (b.url !== undefined) await checkUrl(b.url, d);
      const s = await updateSubscription(d.sql, agentId, subscriptionId, b);
      return c.json({ ok: true as const, data: subscriptionView(s) }, 200);
    },
  );

  app.openapi(
    webhookRoute({
      method: "delete",
      path: SUBSCRIPTION_PATH,
      summary: "Delete a subscription, its pending deliveries and their log",
      request: { params: SubParams },
      responses: {
        200: jsonResponse(
          "Deleted",
          okEnvelope(z.object({ subscriptionId: z.string(), deleted: z.literal(true) })),
        ),
        ...WEBHOOK_ERRORS,
      },
    }),
    async (c) => {
      const { agentId, subscriptionId } = subscriptionOf(c);
      await deleteSubscription(d.sql, agentId, subscriptionId);
      return c.json({ ok: true as const, data: { subscriptionId, deleted: true as const } }, 200);
    },
  );

  app.openapi(
    webhookRoute({
      method: "post",
      path: `${SUBSCRIPTION_PATH}/rotate-secret`,
      summary: "Issue a new signing secret; the old one keeps signing beside it for 24 h",
      request: { params: SubParams },
      responses: {
        200: jsonResponse(
          "The subscription and its new secret",
          okEnvelope(SubscriptionWithSecret),
        ),
        ...WEBHOOK_ERRORS,
      },
    }),
    async (c) => {
      const { agentId, subscriptionId } = subscriptionOf(c);
      const { subscription, secret } = await rotateSecret(
        d.sql,
        d.secretsKey,
        agentId,
        subscriptionId,
      );
      return c.json(
        { ok: true as const, data: { ...subscriptionView(subscription), secret } },
        200,
      );
    },
  );

  registerWebhookDeliveries(app, d);
}
