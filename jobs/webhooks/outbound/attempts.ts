import type { Sql } from "../../../lib/db/client.ts";
import { insertAgentEvents } from "../../../lib/events/store.ts";
import { OUTBOUND_LIMITS } from "../../../lib/limits.ts";
import type { SubscriptionRow } from "../../../lib/webhooks/outbound/subscriptions.ts";
import type { OutboundTiming } from "../../../lib/webhooks/outbound/timing.ts";
import type { SendResult } from "./send.ts";

/** Any fixed number: claims are short and serialised across workers. */
const CLAIM_LOCK = 7_400_016;

export type Claimed = {
  deliveryId: string;
  subscriptionId: string;
  eventId: bigint | null;
  webhookId: string;
  body: string;
  /** This attempt's number over the delivery's life: the fence for recording its result. */
  attempt: number;
  cycleAttempts: number;
  cycleStartedAt: Date;
};

/**
 * Claims up to `limit` due deliveries, at most one per subscription (its oldest due event,
 * so a subscription's deliveries go out in event order, best effort, and a slow receiver
 * holds only its own slot). A claim is a lease: a worker that dies mid-attempt leaves it to
 * lapse, and the delivery is claimed again, its lost attempt logged as `interrupted`.
 */
export async function claimDue(
  sql: Sql,
  p: { limit: number; leaseMs: number },
): Promise<{ claimed: Claimed[]; subscriptions: Map<string, SubscriptionRow> }> {
  if (p.limit <= 0) return { claimed: [], subscriptions: new Map() };
  return sql.begin(async (tx) => {
    // NO_WAIT_FOR_FLUSH (lib/webhooks/outbound/timing.ts): this commit does not wait for the WAL flush.
    await tx`select pg_advisory_xact_lock(${CLAIM_LOCK}),
      set_config('synchronous_commit', 'off', true)`;
    // One statement: claim, log the lost attempt of a lapsed lease as interrupted, open this
    // attempt's log row, and read what signing needs.
    const rows = await tx<(Claimed & SubscriptionRow)[]>`
      with due as (
        select delivery_id from (
          select distinct on (d.subscription_id) d.delivery_id, d.next_attempt_at
          from app.webhook_deliveries d
          join app.webhook_subscriptions s on s.subscription_id = d.subscription_id
          where d.status in ('pending', 'delivering') and d.next_attempt_at <= now()
            and (d.status = 'pending' or d.lease_until <= now())
            and (s.enabled or d.event_id is null)
            -- Evaluated once (a hashed subplan), not once per candidate row.
            and d.subscription_id not in (select b.subscription_id from app.webhook_deliveries b
              where b.status = 'delivering' and b.lease_until > now())
          order by d.subscription_id, d.occurred_at, d.event_id, d.delivery_id
        ) x order by next_attempt_at limit ${p.limit}
      ), claimed as (
        update app.webhook_deliveries d
        set status = 'delivering', lease_until = now() + ${p.leaseMs} * interval '1 millisecond',
          attempts = attempts + 1, cycle_attempts = cycle_attempts + 1, last_attempt_at = now()
        from due where d.delivery_id = due.delivery_id
        returning d.*
      ), interrupted as (
        update app.webhook_attempts
        set outcome = 'interrupted', error = 'the worker stopped during this attempt'
        where delivery_id in (select delivery_id from claimed) and outcome is null
      ), opened as (
        insert into app.webhook_attempts (delivery_id, attempt)
        select delivery_id, attempts from claimed
      )
      select c.delivery_id as "deliveryId", c.subscription_id as "subscriptionId",
        c.event_id as "eventId", c.webhook_id as "webhookId", c.body, c.attempts as attempt,
        c.cycle_attempts as "cycleAttempts", c.cycle_started_at as "cycleStartedAt",
        s.agent_id as "agentId", s.url, s.enabled, s.secret,
        s.previous_secret as "previousSecret", s.previous_secret_until as "previousSecretUntil"
      from claimed c join app.webhook_subscriptions s on s.subscription_id = c.subscription_id`;
    const claimed: Claimed[] = rows.map((r) => ({
      deliveryId: r.deliveryId,
      subscriptionId: r.subscriptionId,
      eventId: r.eventId,
      webhookId: r.webhookId,
      body: r.body,
      attempt: r.attempt,
      cycleAttempts: r.cycleAttempts,
      cycleStartedAt: r.cycleStartedAt,
    }));
    return { claimed, subscriptions: new Map(rows.map((r) => [r.subscriptionId, r])) };
  }) as Promise<{ claimed: Claimed[]; subscriptions: Map<string, SubscriptionRow> }>;
}

/**
 * When the next attempt of a failed one happens, or null when the schedule is spent: the
 * schedule's offset from the cycle start, moved by jitter, never in the past, later if the
 * receiver asked with `retry-after` (within the cycle's window).
 */
export function nextAttemptAt(p: {
  timing: OutboundTiming;
  cycleStartedAt: Date;
  cycleAttempts: number;
  retryAfterSeconds: number | null;
  now: Date;
  random?: () => number;
}): Date | null {
  const s = p.timing.scheduleMs;
  const offset = s[p.cycleAttempts];
  if (offset === undefined) return null;
  const gap = offset - (s[p.cycleAttempts - 1] ?? 0);
  const jitter = (((p.random ?? Math.random)() * 2 - 1) * OUTBOUND_LIMITS.jitter * gap) | 0;
  let at = Math.max(p.now.getTime(), p.cycleStartedAt.getTime() + offset + jitter);
  if (p.retryAfterSeconds !== null) {
    const end = p.cycleStartedAt.getTime() + (s.at(-1) ?? 0);
    at = Math.max(at, Math.min(end, p.now.getTime() + p.retryAfterSeconds * 1000));
  }
  return new Date(at);
}

/**
 * Records an attempt's result. Success ends the delivery and the subscription's failure
 * streak. A failure schedules the next attempt or, with the schedule spent or a 410 Gone,
 * fails the delivery; a 410, or failures only for the failing window, disables the
 * subscription and stores an `internal` event `webhook.subscription_disabled` for the agent.
 * A late result of an attempt whose lease lapsed (and was claimed again) changes nothing.
 */
export async function recordResult(
  sql: Sql,
  p: { claimed: Claimed; agentId: string; url: string; result: SendResult; timing: OutboundTiming },
): Promise<void> {
  const { claimed: c, result: r } = p;
  const now = new Date();
  const gone = r.statusCode === 410;
  const next =
    r.ok || gone
      ? null
      : nextAttemptAt({ ...c, timing: p.timing, retryAfterSeconds: r.retryAfterSeconds, now });
  const status = next ? "pending" : "failed";
  if (r.ok) {
    // The common case in one round trip: attempt, delivery and the end of a failure streak.
    await sql`
      with cfg as (select set_config('synchronous_commit', 'off', true) as v),
      attempt as (
        update app.webhook_attempts
        set latency_ms = ${r.latencyMs}, status_code = ${r.statusCode}, error = null,
          outcome = 'succeeded'
        where delivery_id = ${c.deliveryId} and attempt = ${c.attempt} and outcome is null
      ), delivery as (
        update app.webhook_deliveries
        set status = 'succeeded', next_attempt_at = null, lease_until = null,
          last_status_code = ${r.statusCode}, last_error = null, finished_at = ${now}
        where delivery_id = ${c.deliveryId} and attempts = ${c.attempt} and status = 'delivering'
        returning event_id
      ), streak as (
        update app.webhook_subscriptions set failing_since = null
        where subscription_id = ${c.subscriptionId} and failing_since is not null
          and exists (select 1 from delivery where event_id is not null)
      )
      select (select v from cfg) as v`;
    return;
  }
  await sql.begin(async (tx) => {
    await tx`set local synchronous_commit = off`; // see NO_WAIT_FOR_FLUSH in lib/webhooks/outbound/timing.ts
    await tx`update app.webhook_attempts
      set latency_ms = ${r.latencyMs}, status_code = ${r.statusCode}, error = ${r.error},
        outcome = 'failed'
      where delivery_id = ${c.deliveryId} and attempt = ${c.attempt} and outcome is null`;
    const updated = await tx`update app.webhook_deliveries
      set status = ${status}, next_attempt_at = ${next}, lease_until = null,
        last_status_code = ${r.statusCode}, last_error = ${r.error},
        finished_at = ${next ? null : now}
      where delivery_id = ${c.deliveryId} and attempts = ${c.attempt} and status = 'delivering'`;
    // Test deliveries say nothing about the subscription's health.
    if (updated.count === 0 || c.eventId === null) return;
    // Failing for the whole window: since the cutoff, or, when this delivery's schedule (which
    // spans the window, give or take jitter) is spent, since its first attempt (recorded
    // within one lease of the cycle start).
    const spent = !gone && next === null;
    const windowStart = now.getTime() - p.timing.failingWindowMs;
    const cutoff = new Date(
      spent ? Math.max(windowStart, c.cycleStartedAt.getTime() + p.timing.leaseMs) : windowStart,
    );
    const [d] = await tx<{ justDisabled: boolean; reason: string }[]>`
      with cur as (
        select subscription_id, enabled, coalesce(failing_since, ${now}) as fs
        from app.webhook_subscriptions where subscription_id = ${c.subscriptionId} for update
      ), dec as (
        select *, (enabled and (${gone} or fs <= ${cutoff})) as disable from cur
      )
      update app.webhook_subscriptions s
      set failing_since = dec.fs, enabled = s.enabled and not dec.disable,
        disabled_reason = case when dec.disable
          then (case when ${gone} then 'gone' else 'failing' end) else s.disabled_reason end,
        disabled_at = case when dec.disable then ${now} else s.disabled_at end,
        updated_at = case when dec.disable then ${now} else s.updated_at end
      from dec where s.subscription_id = dec.subscription_id
      returning dec.disable as "justDisabled", s.disabled_reason as reason`;
    if (!d?.justDisabled) return;
    await insertAgentEvents({
      sql: tx as unknown as Sql,
      events: [
        {
          agentId: p.agentId,
          eventType: "webhook.subscription_disabled",
          category: "system",
          source: "outbound-webhooks",
          sourceEventId: `${c.subscriptionId}:disabled:${now.getTime()}`,
          occurredAt: now,
          visibility: "internal",
          data: {
            subscriptionId: c.subscriptionId,
            url: p.url,
            reason: d.reason,
            lastStatusCode: r.statusCode,
            lastError: r.error,
          },
        },
      ],
    });
  });
}
