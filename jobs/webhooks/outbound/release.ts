import type { Sql } from "../../../lib/db/client.ts";
import type { AgentEventRow } from "../../../lib/events/store.ts";
import { OUTBOUND_LIMITS } from "../../../lib/limits.ts";
import { deliveryBody } from "../../../lib/webhooks/outbound/envelope.ts";

/** The chain head of `chainId`, or undefined when it cannot be read now (retried later). */
export type HeadBlockReader = (chainId: number) => Promise<bigint | undefined>;

/**
 * Releases held chain-event deliveries whose block is at least
 * OUTBOUND_LIMITS.chainFinalityDepth below the head: the body is rendered from the row as it
 * is then (after any correction). A row the projector deleted after a reorg cancels its
 * deliveries; a row moved to another block waits for that block. Returns how many changed.
 *
 * @example
 * await releaseFinal(sql, async () => await client.getBlockNumber());
 */
export async function releaseFinal(sql: Sql, headBlock: HeadBlockReader): Promise<number> {
  const held = await sql<{ deliveryId: string; eventId: bigint; chainId: number | null }[]>`
    select delivery_id as "deliveryId", event_id as "eventId", hold_chain_id as "chainId"
    from app.webhook_deliveries where status = 'held'
    order by hold_block limit ${OUTBOUND_LIMITS.releaseBatch}`;
  if (held.length === 0) return 0;
  const heads = new Map<number, bigint | undefined>();
  for (const chainId of new Set(held.map((h) => h.chainId ?? 0))) {
    heads.set(chainId, await headBlock(chainId).catch(() => undefined));
  }
  const events = await sql<AgentEventRow[]>`
    select id, agent_id as "agentId", event_type as "eventType", category, source,
      source_event_id as "sourceEventId", occurred_at as "occurredAt",
      ingested_at as "ingestedAt", correlation_id as "correlationId", visibility, data,
      chain_id as "chainId", block_number as "blockNumber"
    from app.agent_events where id = any(${[...new Set(held.map((h) => h.eventId.toString()))]})`;
  const byId = new Map(events.map((e) => [e.id, e]));
  let changed = 0;
  for (const h of held) {
    const e = byId.get(h.eventId);
    if (e?.visibility !== "public") {
      changed += (
        await sql`update app.webhook_deliveries
          set status = 'cancelled', finished_at = now(),
            last_error = 'the event was removed or hidden by a chain reorganisation correction'
          where delivery_id = ${h.deliveryId} and status = 'held'`
      ).count;
      continue;
    }
    const head = heads.get(e.chainId ?? 0);
    if (head === undefined || e.blockNumber === null) continue;
    if (e.blockNumber + OUTBOUND_LIMITS.chainFinalityDepth > head) {
      await sql`update app.webhook_deliveries set hold_block = ${e.blockNumber.toString()}
        where delivery_id = ${h.deliveryId} and hold_block is distinct from ${e.blockNumber.toString()}`;
      continue;
    }
    changed += (
      await sql`update app.webhook_deliveries
        set status = 'pending', body = ${deliveryBody(e)}, occurred_at = ${e.occurredAt},
          event_type = ${e.eventType}, hold_block = ${e.blockNumber.toString()},
          cycle_started_at = now(), next_attempt_at = now()
        where delivery_id = ${h.deliveryId} and status = 'held'`
    ).count;
  }
  return changed;
}
