import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { Sql } from "../../../lib/db/client.ts";
import { WEBHOOK_SOURCES, type WebhookPath } from "../../../lib/events/catalog.ts";
import type {
  WebhookSecretName,
  WebhookSecrets,
} from "../../../lib/webhooks/inbound/webhook-secrets.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";
import { errorResponse, jsonBody, jsonResponse, okEnvelope } from "../../http/schemas.ts";
import { countWebhook } from "../../middleware/metrics/index.ts";
import { webhookSignature } from "../../middleware/webhook-signature/index.ts";
import { parseWebhookBody, webhookBodySchema } from "./body.ts";
import { storeWebhook } from "./inbox.ts";
import { STEWARD_EVENT_MAP, type StewardPath, stewardWebhookSignature } from "./steward.ts";

const SECRET_OF: Record<WebhookPath, WebhookSecretName> = {
  "steward/policy": "steward",
  "steward/sign": "steward",
  "cloud/credits": "cloud",
  "cloud/inference": "cloud",
  "code-host": "codeHost",
  "agent-events": "agentEvents",
};

const Received = okEnvelope(
  z.object({
    received: z.literal(true),
    duplicate: z.boolean().openapi({
      description: "true when this (source, sourceEventId) was already stored: nothing new was",
    }),
    ignored: z.boolean().optional().openapi({
      description: "A Steward event type the path does not take (docs/events.md): stored nowhere",
    }),
  }),
).openapi("WebhookReceived");

/**
 * The six inbound webhooks (docs/events.md): signature checked on the raw body,
 * then the body against its event type's schema, the agent resolved, and the request stored
 * once per (source, sourceEventId) in `app.webhook_inbox` before the 200. The consumer
 * (jobs/events) turns inbox rows into agent events. Registered before the per-IP limiter:
 * a signed sender is not a browsing client.
 *
 * @example
 * registerWebhooks(app, { sql, secrets: resolveWebhookSecrets(config) });
 */
export function registerWebhooks(
  app: OpenAPIHono<AppEnv>,
  d: { sql: Sql; secrets: WebhookSecrets },
) {
  for (const path of Object.keys(WEBHOOK_SOURCES) as WebhookPath[]) {
    const url = `/v2/webhooks/${path}`;
    const { source, types } = WEBHOOK_SOURCES[path];
    app.openAPIRegistry.registerPath({
      method: "post",
      path: url,
      tags: ["webhooks"],
      summary: `Inbound webhook: ${types ? types.join(", ") : "any pre-formed agent event"}`,
      description: `Signed with the ${SECRET_OF[path]} secret: \`X-Webhook-Signature: t=<unix ms>,v1=<hex HMAC-SHA256 of t + "." + raw body>\` (several v1 allowed for rotation, 5 minute tolerance). Stored as source \`${source}\`; answered after the durable insert; a redelivery of the same sourceEventId answers 200 with duplicate true.${path in STEWARD_EVENT_MAP ? " Also takes Steward's own deliveries (`X-Steward-Signature: v2=…`, `X-Steward-Delivery-Id`, `X-Steward-Event`, `X-Steward-Sent-At`; the delivery id is the sourceEventId) with its event types mapped as docs/events.md says." : ""}`,
      request: {
        headers: z.object({ "x-webhook-signature": z.string() }),
        body: jsonBody(webhookBodySchema(path)),
      },
      responses: {
        200: jsonResponse("Stored (or already stored)", Received),
        400: errorResponse("The body fails its event type's schema, or the agent is unknown"),
        401: errorResponse("Signature missing, malformed, stale or wrong"),
        413: errorResponse("Body too large"),
        500: errorResponse("Server-side problem; retry with backoff"),
      },
    });
    const secret = d.secrets[SECRET_OF[path]];
    app.use(url, countWebhook(source));
    app.use(
      url,
      path in STEWARD_EVENT_MAP
        ? stewardWebhookSignature(d.sql, path as StewardPath, secret)
        : webhookSignature(secret),
    );
    app.post(url, async function webhookHandler(c) {
      const parsed = parseWebhookBody(path, c.get("webhookBody") ?? "");
      if (!parsed.ok) {
        throw new HttpError("validation_failed", {
          message: parsed.message,
          details: parsed.details,
        });
      }
      const stored = await storeWebhook(d.sql, source, parsed.body);
      if (stored === "unknown_agent") {
        throw new HttpError("validation_failed", {
          message: `no agent ${parsed.body.agentId}: send the service's agent id or the agent's token address`,
          details: [{ path: "agentId", message: "unknown agent" }],
        });
      }
      return c.json(
        { ok: true as const, data: { received: true as const, duplicate: stored === "duplicate" } },
        200,
      );
    });
  }
}
