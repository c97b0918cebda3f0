import { LaunchpadError } from "../../errors.ts";

/**
 * Why a webhook subscription or delivery request was refused: `WEBHOOK_NOT_FOUND` (no such
 * agent, subscription or delivery), `WEBHOOK_LIMIT` (10 per agent), `DELIVERY_NOT_SENDABLE`
 * (a held or reorg-cancelled chain event). The API maps them in `toHttpError`.
 *
 * @example
 * throw new OutboundWebhookError("WEBHOOK_NOT_FOUND", { message: "no webhook subscription x" });
 */
export class OutboundWebhookError extends LaunchpadError<
  "WEBHOOK_NOT_FOUND" | "WEBHOOK_LIMIT" | "DELIVERY_NOT_SENDABLE"
> {
  override name = "OutboundWebhookError";
}
