import { z } from "@hono/zod-openapi";
import {
  CHAIN_TYPES,
  WEBHOOK_SOURCES,
  WEBHOOK_TYPES,
  type WebhookEventType,
  type WebhookPath,
} from "../../../lib/events/catalog.ts";
import { EVENT_CATEGORIES, EVENT_VISIBILITIES } from "../../../lib/events/store.ts";
import type { ErrorDetail } from "../../errors.ts";
import { parseJson } from "../../http/json-body.ts";

const ROLLUP_PREFIX = "inference.spent:";
const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/;

/** The envelope every webhook body shares; `data` is checked against its type's schema. */
const Envelope = z.looseObject({
  sourceEventId: z.string().min(1).max(200).openapi({
    description:
      "The sender's stable id of this event: a redelivery with the same id stores nothing",
  }),
  eventType: z.string().max(100).regex(EVENT_TYPE, "must look like noun.verb, e.g. pr.merged"),
  occurredAt: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time" })
    .openapi({ description: "When it happened at the origin (not when it was sent)" }),
  agentId: z.string().min(1).max(200).openapi({
    description: "The service's agent id, or the agent's token address (0x…, any case)",
  }),
  correlationId: z.string().min(1).max(200).optional(),
  visibility: z.enum(EVENT_VISIBILITIES).optional().openapi({ description: "default public" }),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookBody = z.infer<typeof Envelope> & {
  category?: (typeof EVENT_CATEGORIES)[number];
};

/** The body schema of one type: the envelope with that type's `data`. */
function typed(type: WebhookEventType) {
  const name = `WebhookEvent_${type.replaceAll(".", "_")}`;
  return Envelope.extend({ eventType: z.literal(type), data: WEBHOOK_TYPES[type].data }).openapi(
    name,
  );
}

/** Any type not in the catalog, for `/v2/webhooks/agent-events`. */
const Generic = Envelope.extend({
  category: z.enum(EVENT_CATEGORIES).optional().openapi({
    description: "Feed category of an unknown type (default system); known types have their own",
  }),
}).openapi("WebhookGenericEvent");

/** The OpenAPI body schema of each webhook path: a discriminated union on eventType. */
export function webhookBodySchema(path: WebhookPath) {
  const types = (WEBHOOK_SOURCES[path].types ?? Object.keys(WEBHOOK_TYPES)) as WebhookEventType[];
  const union = z.discriminatedUnion(
    "eventType",
    types.map(typed) as unknown as [ReturnType<typeof typed>, ...ReturnType<typeof typed>[]],
  );
  return WEBHOOK_SOURCES[path].types ? union : z.union([union, Generic]);
}

export type ParsedWebhook =
  | { ok: true; body: WebhookBody }
  | { ok: false; message: string; details: ErrorDetail[] };

/**
 * Parses a verified raw body for a path: the envelope, then whether the path takes the type,
 * then the type's `data` schema. Each failure names the field, for the 400 details; a body
 * that is not JSON throws the 400 itself.
 *
 * @example
 * const r = parseWebhookBody("code-host", raw); if (!r.ok) throw new HttpError(...)
 */
export function parseWebhookBody(path: WebhookPath, raw: string): ParsedWebhook {
  const json = parseJson(raw);
  const env = (WEBHOOK_SOURCES[path].types ? Envelope : Generic).safeParse(json);
  if (!env.success) return fail(issues(env.error, []));
  if (env.data.sourceEventId.startsWith(ROLLUP_PREFIX)) {
    // The consumer's per-minute inference rows use this prefix in the same (source, id) space.
    return fail([{ path: "sourceEventId", message: `must not start with ${ROLLUP_PREFIX}` }]);
  }
  const type = env.data.eventType;
  const accepted = WEBHOOK_SOURCES[path].types as readonly string[] | null;
  if (accepted && !accepted.includes(type)) {
    return fail([
      {
        path: "eventType",
        message: `${type} is not accepted here; this path takes ${accepted.join(", ")}`,
      },
    ]);
  }
  if (type in CHAIN_TYPES) {
    return fail([{ path: "eventType", message: `${type} comes from the chain indexer only` }]);
  }
  const schema = (WEBHOOK_TYPES as Record<string, { data: z.ZodType }>)[type]?.data;
  if (schema) {
    const data = schema.safeParse(env.data.data);
    if (!data.success) return fail(issues(data.error, ["data"]));
    return { ok: true, body: { ...env.data, data: data.data as Record<string, unknown> } };
  }
  return { ok: true, body: env.data };
}

function issues(error: z.ZodError, prefix: string[]): ErrorDetail[] {
  return error.issues.map((i) => ({
    path: [...prefix, ...i.path.map(String)].join(".") || "(root)",
    message: i.message,
  }));
}

function fail(details: ErrorDetail[]): ParsedWebhook {
  return { ok: false, message: details.map((d) => `${d.path}: ${d.message}`).join("; "), details };
}
