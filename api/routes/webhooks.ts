import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { Sql } from "../../lib/db/client.ts";
import { verifyWebhook } from "../../services/steward/protocol.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";

/** Event types each steward webhook path accepts (SPEC.md "Inbound webhooks"). */
const STEWARD_TYPES = {
  policy: ["policy.applied", "policy.denied", "policy.needs_manual"],
  sign: ["safe.tx.signed_by_steward", "session.opened", "session.revoked", "transaction.sent"],
} as const;

const Event = z.object({
  sourceEventId: z.string().min(1).max(200),
  eventType: z.string(),
  occurredAt: z.iso.datetime(),
  agentId: z.string().min(1),
  walletId: z.string().min(1),
  data: z.record(z.string(), z.unknown()),
});

/**
 * `POST /v2/webhooks/steward/{policy|sign}`: HMAC-verified (`X-Webhook-Signature`, 5 minute
 * tolerance), schema-checked, stored once per (source, sourceEventId) in `app.webhook_inbox`.
 *
 * @example
 * registerStewardWebhooks(app, { sql, secret });
 */
export function registerStewardWebhooks(app: OpenAPIHono<AppEnv>, d: { sql: Sql; secret: string }) {
  app.post("/v2/webhooks/steward/:kind{policy|sign}", async (c) => {
    const kind = c.req.param("kind") as keyof typeof STEWARD_TYPES;
    const raw = await c.req.text();
    if (!verifyWebhook(d.secret, raw, c.req.header("x-webhook-signature"))) {
      throw new HttpError("not_authenticated", {
        message: "webhook signature missing, stale or wrong",
      });
    }
    let parsed: z.infer<typeof Event>;
    try {
      parsed = Event.parse(JSON.parse(raw));
    } catch {
      throw new HttpError("validation_failed", {
        message: "webhook body does not match the event schema",
      });
    }
    if (!(STEWARD_TYPES[kind] as readonly string[]).includes(parsed.eventType)) {
      throw new HttpError("validation_failed", {
        message: `${parsed.eventType} is not a ${kind} event`,
      });
    }
    await d.sql`insert into app.webhook_inbox (source, source_event_id, event_type, payload)
      values ('steward-webhook', ${parsed.sourceEventId}, ${parsed.eventType}, ${d.sql.json(parsed as never)})
      on conflict (source, source_event_id) do nothing`;
    return c.json({ ok: true as const, data: { received: true } }, 200);
  });
}
