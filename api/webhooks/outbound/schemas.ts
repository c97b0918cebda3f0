import { createRoute, z } from "@hono/zod-openapi";
import { EVENT_CATEGORIES } from "../../../lib/events/store.ts";
import { OUTBOUND_LIMITS } from "../../../lib/limits.ts";
import { DELIVERY_STATUSES } from "../../../lib/webhooks/outbound/deliveries.ts";
import { AgentParams, errorResponse, IsoTime } from "../../http/schemas.ts";
import { agentOf } from "../../middleware/agent-path/index.ts";

const max = OUTBOUND_LIMITS.maxFilterValues;

const EventTypeFilter = z
  .string()
  .regex(
    /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*(\.\*)?$/,
    "must be an event type (token.created) or a prefix ending in .* (token.*)",
  )
  .max(100);

/** Filters as clients send them: absent or null passes everything. */
const filters = {
  eventTypes: z
    .array(EventTypeFilter)
    .min(1)
    .max(max)
    .nullable()
    .optional()
    .openapi({ description: "event types (or `prefix.*`) to receive; null or absent: all" }),
  sources: z
    .array(z.string().min(1).max(64))
    .min(1)
    .max(max)
    .nullable()
    .optional()
    .openapi({ description: "event sources to receive; null or absent: all" }),
  categories: z
    .array(z.enum(EVENT_CATEGORIES))
    .min(1)
    .max(EVENT_CATEGORIES.length)
    .nullable()
    .optional()
    .openapi({ description: "feed categories to receive; null or absent: all" }),
};

export const CreateSubscriptionBody = z
  .object({
    url: z.string().max(2048).openapi({ example: "https://agent.example/webhooks" }),
    ...filters,
    description: z.string().max(500).nullable().optional(),
  })
  .strict()
  .openapi("WebhookSubscriptionCreate");

export const UpdateSubscriptionBody = z
  .object({
    url: z.string().max(2048).optional(),
    ...filters,
    description: z.string().max(500).nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .openapi("WebhookSubscriptionUpdate");

export const Subscription = z
  .object({
    subscriptionId: z.string(),
    agentId: z.string(),
    url: z.string(),
    eventTypes: z.array(z.string()).nullable(),
    sources: z.array(z.string()).nullable(),
    categories: z.array(z.string()).nullable(),
    description: z.string().nullable(),
    enabled: z.boolean(),
    disabledReason: z.enum(["manual", "gone", "failing"]).nullable().openapi({
      description: "manual (PATCH), gone (the receiver answered 410) or failing (24 h of failures)",
    }),
    disabledAt: IsoTime.nullable(),
    previousSecretExpiresAt: IsoTime.nullable().openapi({
      description: "after a rotation, when the previous secret stops signing",
    }),
    createdAt: IsoTime,
    updatedAt: IsoTime,
  })
  .openapi("WebhookSubscription");

export const SubscriptionWithSecret = Subscription.extend({
  secret: z.string().openapi({
    description: "the signing secret (whsec_ + base64); shown only in this response",
    example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  }),
}).openapi("WebhookSubscriptionWithSecret");

export const Attempt = z
  .object({
    attempt: z.number().int(),
    startedAt: IsoTime,
    latencyMs: z.number().int().nullable(),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    outcome: z.enum(["succeeded", "failed", "interrupted"]).nullable().openapi({
      description: "null while in flight; interrupted: the worker stopped mid-attempt",
    }),
  })
  .openapi("WebhookAttempt");

export const Delivery = z
  .object({
    deliveryId: z.string(),
    subscriptionId: z.string(),
    webhookId: z.string().openapi({ description: "the webhook-id header: same on every attempt" }),
    eventId: z
      .string()
      .nullable()
      .openapi({ description: "the feed item id; null for webhook.test" }),
    eventType: z.string(),
    occurredAt: IsoTime,
    status: z.enum(DELIVERY_STATUSES).openapi({
      description:
        "held: chain event not final yet; pending: waiting for its next attempt; delivering: in flight; succeeded; failed: schedule spent or 410; cancelled: removed by a reorg",
    }),
    attempts: z.number().int(),
    nextAttemptAt: IsoTime.nullable(),
    lastAttemptAt: IsoTime.nullable(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: IsoTime,
    finishedAt: IsoTime.nullable(),
    log: z.array(Attempt).openapi({ description: "the latest 20 attempts, oldest first" }),
  })
  .openapi("WebhookDelivery");

export const SubParams = AgentParams.extend({ subscriptionId: z.string().min(1).max(64) });

/** Errors every webhook route may answer, besides its own. */
export const WEBHOOK_ERRORS = {
  400: errorResponse("validation_failed: a parameter or the body is invalid"),
  401: errorResponse("AGENT_AUTH_MISSING or AGENT_AUTH_INVALID"),
  403: errorResponse("AGENT_SCOPE_FORBIDDEN, or not_authorized: another agent's key"),
  404: errorResponse("not_found: no such agent or subscription"),
  429: errorResponse("rate_limited"),
  500: errorResponse("internal_error; retry with backoff"),
} as const;

const WEBHOOK_SECURITY: Record<string, string[]>[] = [{ agentKey: [] }, { agentKeyHeader: [] }];

export const SUBSCRIPTIONS_PATH = "/v2/agents/{agent}/webhooks";
export const SUBSCRIPTION_PATH = `${SUBSCRIPTIONS_PATH}/{subscriptionId}`;

/** A webhook route: its tag and the agent key (or operator token) it needs. */
export const webhookRoute = <T extends Parameters<typeof createRoute>[0]>(r: T) =>
  createRoute({ ...r, tags: ["webhooks"], security: WEBHOOK_SECURITY });

/** The agent and the subscription a `SUBSCRIPTION_PATH` route names (its params validated). */
export function subscriptionOf(c: {
  var: Parameters<typeof agentOf>[0]["var"];
  req: { valid(target: "param"): { subscriptionId: string } };
}) {
  return { agentId: agentOf(c).agentId, subscriptionId: c.req.valid("param").subscriptionId };
}
