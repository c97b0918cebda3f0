import type { MiddlewareHandler } from "hono";
import { verifyWebhookSignature } from "../../../lib/webhooks/inbound/signature.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";

/**
 * Verifies `X-Webhook-Signature` over the raw body before anything parses it, and leaves the
 * raw text in `c.get("webhookBody")`: a rejected request never reaches the inbox.
 *
 * @example
 * app.use("/v2/webhooks/code-host", webhookSignature(secret));
 */
export function webhookSignature(secret: string): MiddlewareHandler<AppEnv> {
  return async function webhookSignatureMiddleware(c, next) {
    const body = await c.req.text();
    const verdict = verifyWebhookSignature({
      secret,
      body,
      header: c.req.header("x-webhook-signature"),
    });
    if (!verdict.ok) throw new HttpError("not_authenticated", { message: verdict.message });
    c.set("webhookBody", body);
    await next();
  };
}
