import type { Sql } from "../../../lib/db/client.ts";
import { AGENT_EVENTS_CHANNEL } from "../../../lib/events/store.ts";
import { OUTBOUND_LIMITS } from "../../../lib/limits.ts";
import type { Logger } from "../../../lib/logger.ts";
import { countOutboundAttempt } from "../../../lib/metrics/outbound.ts";
import { signatureHeader } from "../../../lib/webhooks/outbound/signing.ts";
import { liveSecrets, type SubscriptionRow } from "../../../lib/webhooks/outbound/subscriptions.ts";
import { OUTBOUND_CHANNEL, type OutboundTiming } from "../../../lib/webhooks/outbound/timing.ts";
import { type Claimed, claimDue, recordResult } from "./attempts.ts";
import { fanOut } from "./fanout.ts";
import { type HeadBlockReader, releaseFinal } from "./release.ts";
import { sendWebhook } from "./send.ts";

export type StartOutboundDispatcherParameters = {
  sql: Sql;
  log: Logger;
  secretsKey: Buffer;
  trustedOrigins: readonly string[];
  timing: OutboundTiming;
  headBlock: HeadBlockReader;
  concurrency?: number;
};

/**
 * Runs outbound delivery in this process: fan-out of new events into deliveries (durable
 * cursor), release of final chain events, and attempts (at most `concurrency` in flight, one
 * per subscription). It wakes on `NOTIFY agent_events` / `outbound_deliveries` and on a
 * timer, so a missed notification only delays. All state is in Postgres: a process killed at
 * any point loses nothing, its in-flight attempts are retried when their lease lapses.
 *
 * @example
 * const d = await startOutboundDispatcher({ sql, log, secretsKey, trustedOrigins: [], timing, headBlock });
 * await d.stop();
 */
export async function startOutboundDispatcher(p: StartOutboundDispatcherParameters) {
  const concurrency = p.concurrency ?? OUTBOUND_LIMITS.globalConcurrency;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let running = false;
  let again = false;
  let lastRelease = 0;
  // Set by new events (NOTIFY agent_events) and the backstop timer; a finished attempt only claims.
  let eventsPending = true;

  const attempt = async (c: Claimed, s: SubscriptionRow | undefined) => {
    if (!s) return;
    const timestamp = Math.floor(Date.now() / 1000);
    const result = await sendWebhook({
      url: s.url,
      body: c.body,
      timeoutMs: p.timing.requestTimeoutMs,
      trustedOrigins: p.trustedOrigins,
      headers: {
        "webhook-id": c.webhookId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureHeader({
          secrets: liveSecrets(p.secretsKey, s),
          id: c.webhookId,
          timestamp,
          body: c.body,
        }),
      },
    });
    countOutboundAttempt(result.ok, c.cycleStartedAt);
    await recordResult(p.sql, {
      claimed: c,
      agentId: s.agentId,
      url: s.url,
      result,
      timing: p.timing,
    });
  };

  const tick = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        if (stopped) return;
        if (eventsPending) {
          eventsPending = false;
          while ((await fanOut(p.sql)) >= OUTBOUND_LIMITS.fanoutBatch && !stopped);
        }
        if (Date.now() - lastRelease >= OUTBOUND_LIMITS.releaseEveryMs) {
          lastRelease = Date.now();
          await releaseFinal(p.sql, p.headBlock);
        }
        const { claimed, subscriptions } = await claimDue(p.sql, {
          limit: concurrency - inFlight.size,
          leaseMs: p.timing.leaseMs,
        });
        for (const c of claimed) {
          const run = attempt(c, subscriptions.get(c.subscriptionId))
            .catch((error: unknown) =>
              p.log.warn({ err: error, deliveryId: c.deliveryId }, "webhook attempt not recorded"),
            )
            .finally(() => {
              inFlight.delete(run);
              void tick();
            });
          inFlight.add(run);
        }
      } while (again);
    } catch (error) {
      eventsPending = true;
      p.log.warn({ err: error }, "outbound dispatch pass failed; retrying");
    } finally {
      running = false;
    }
  };

  const wakeForEvents = () => {
    eventsPending = true;
    void tick();
  };
  // A listener's (re)connect reads what was written while it was away.
  const listeners = await Promise.all([
    p.sql.listen(AGENT_EVENTS_CHANNEL, wakeForEvents, wakeForEvents),
    p.sql.listen(
      OUTBOUND_CHANNEL,
      () => void tick(),
      () => void tick(),
    ),
  ]);
  // The short timer finds attempts that came due; new events come by NOTIFY, and the long one
  // is the backstop for a missed notification (fan-out on every short tick was most of an idle
  // worker's queries).
  const timer = setInterval(() => void tick(), OUTBOUND_LIMITS.pollMs);
  const eventsTimer = setInterval(wakeForEvents, OUTBOUND_LIMITS.fanoutEveryMs);
  void tick();
  return {
    /** Stops claiming, lets attempts in flight finish (each is bounded by its timeout). */
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      clearInterval(eventsTimer);
      await Promise.all(listeners.map((l) => l.unlisten().catch(() => {})));
      await Promise.allSettled([...inFlight]);
    },
  };
}
