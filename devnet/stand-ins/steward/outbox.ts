import { randomUUID } from "node:crypto";
import type { Logger } from "../../../lib/logger.ts";
import { STEWARD_LIMITS } from "../../../services/limits.ts";
import { stewardDeliveryHeaders } from "../../../services/steward/webhooks.ts";
import type { Outgoing, StewardStore } from "./store.ts";

export type Emit = (
  agentId: string,
  type: string,
  data: Record<string, unknown>,
) => { outgoing: Outgoing[]; deliver: () => void };

/**
 * Steward's deliveries: one event per matching registered webhook (an empty `events` list
 * takes all), stored in the outbox first and sent after, signed v2 with the webhook's secret,
 * the same delivery id on every retry until the receiver answers 2xx (a 4xx other than 429
 * never will: dropped).
 *
 * @example
 * const { emit, stop } = createOutbox({ store, tenantId, log, now });
 */
export function createOutbox(p: {
  store: StewardStore;
  tenantId: string;
  log: Logger;
  now: () => Date;
}) {
  const send = async (o: Outgoing) => {
    const hook = p.store.webhooks().find((w) => w.id === o.webhookId);
    if (!hook) return p.store.delivered(o.body.deliveryId);
    const body = JSON.stringify(o.body);
    const res = await fetch(hook.url, {
      method: "POST",
      headers: stewardDeliveryHeaders({
        secret: hook.secret,
        body,
        deliveryId: o.body.deliveryId,
        eventType: o.body.type,
      }),
      body,
      signal: AbortSignal.timeout(STEWARD_LIMITS.webhookTimeoutMs),
    });
    await res.body?.cancel();
    if (res.ok || (res.status >= 400 && res.status < 500 && res.status !== 429)) {
      if (!res.ok)
        p.log.warn({ status: res.status, type: o.body.type }, "webhook refused, dropped");
      p.store.delivered(o.body.deliveryId);
    }
  };
  const deliver = (o: Outgoing) =>
    send(o).catch((error: unknown) => p.log.warn({ err: error }, "webhook not delivered yet"));
  const retry = setInterval(() => {
    for (const o of p.store.outbox()) void deliver(o);
  }, STEWARD_LIMITS.outboxRetryMs);
  retry.unref();

  const emit: Emit = (agentId, type, data) => {
    const at = p.now();
    const outgoing = p.store
      .webhooks()
      .filter((w) => w.enabled && (w.events.length === 0 || w.events.includes(type)))
      .map((w) => ({
        webhookId: w.id,
        body: {
          type,
          tenantId: p.tenantId,
          agentId,
          data,
          timestamp: at.toISOString(),
          deliveryId: randomUUID(),
          signedAt: Math.floor(at.getTime() / 1000),
        },
      }));
    return { outgoing, deliver: () => outgoing.forEach((o) => void deliver(o)) };
  };
  return { emit, stop: () => clearInterval(retry) };
}
