import type { Sql } from "../../../lib/db/client.ts";
import { type AgentEventRow, tailAgentEvents } from "../../../lib/events/store.ts";
import { OUTBOUND_LIMITS } from "../../../lib/limits.ts";
import { deliveryBody, newId, webhookId } from "../../../lib/webhooks/outbound/envelope.ts";
import {
  matchesFilters,
  type SubscriptionFilters,
} from "../../../lib/webhooks/outbound/subscriptions.ts";

/** Any fixed number: one fan-out at a time across every worker process. */
const FANOUT_LOCK = 7_400_015;

type Sub = SubscriptionFilters & { subscriptionId: string; agentId: string; createdAt: Date };

/**
 * Moves the dispatcher's durable cursor over the next committed events and, in the same
 * transaction, creates one delivery per (matching subscription, event): a crash before the
 * commit redoes the batch, after it there is nothing to redo, so no event is lost or doubled.
 * Only `public` events are delivered, to subscriptions that existed when the event was
 * ingested. Chain events are `held` until final (release.ts); others are due at once.
 * Returns how many events it passed.
 *
 * @example
 * while ((await fanOut(sql)) > 0);
 */
export async function fanOut(
  sql: Sql,
  batch: number = OUTBOUND_LIMITS.fanoutBatch,
): Promise<number> {
  return sql.begin(async (tx) => {
    // NO_WAIT_FOR_FLUSH (lib/webhooks/outbound/timing.ts): this commit does not wait for the WAL flush.
    await tx`select pg_advisory_xact_lock(${FANOUT_LOCK}),
      set_config('synchronous_commit', 'off', true)`;
    const [c] = await tx<{ txId: string; eventId: bigint }[]>`
      select tx_id::text as "txId", event_id as "eventId" from app.outbound_cursor`;
    const { events, cursor } = await tailAgentEvents({
      sql: tx as unknown as Sql,
      after: { txId: c?.txId ?? "0", id: c?.eventId ?? 0n },
      limit: batch,
    });
    if (events.length === 0) return 0;
    const visible = events.filter((e) => e.visibility === "public");
    const agents = [...new Set(visible.map((e) => e.agentId))];
    const subs = agents.length
      ? await tx<Sub[]>`select subscription_id as "subscriptionId", agent_id as "agentId",
          event_types as "eventTypes", sources, categories, created_at as "createdAt"
        from app.webhook_subscriptions where enabled and agent_id = any(${agents})`
      : [];
    const rows = visible.flatMap((e) =>
      subs
        .filter((s) => s.agentId === e.agentId && s.createdAt <= e.ingestedAt)
        .filter((s) => matchesFilters(s, e))
        .map((s) => deliveryRow(s.subscriptionId, e)),
    );
    for (let i = 0; i < rows.length; i += 1000) {
      await tx`insert into app.webhook_deliveries ${tx(rows.slice(i, i + 1000) as never)}
        on conflict (subscription_id, event_id) do nothing`;
    }
    await tx`update app.outbound_cursor
      set tx_id = ${cursor.txId}::xid8, event_id = ${cursor.id.toString()}::bigint`;
    return events.length;
  }) as Promise<number>;
}

function deliveryRow(subscriptionId: string, e: AgentEventRow) {
  const chain = e.blockNumber !== null;
  const now = new Date();
  return {
    delivery_id: newId("whdel"),
    subscription_id: subscriptionId,
    event_id: e.id.toString(),
    webhook_id: webhookId(subscriptionId, e.id),
    event_type: e.eventType,
    occurred_at: e.occurredAt,
    status: chain ? "held" : "pending",
    body: chain ? null : deliveryBody(e),
    hold_chain_id: e.chainId,
    hold_block: e.blockNumber?.toString() ?? null,
    cycle_started_at: chain ? null : now,
    next_attempt_at: chain ? null : now,
  };
}
