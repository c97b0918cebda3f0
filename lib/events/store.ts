import type { Sql } from "../db/client.ts";

/** docs/events.md: the feed categories and who may see an event. */
export const EVENT_CATEGORIES = ["trading", "apps", "treasury", "market", "system"] as const;
export type EventCategory = (typeof EVENT_CATEGORIES)[number];
export const EVENT_VISIBILITIES = ["public", "hidden", "internal"] as const;
export type EventVisibility = (typeof EVENT_VISIBILITIES)[number];

/** The Postgres channel every write to `app.agent_events` notifies (once per statement). */
export const AGENT_EVENTS_CHANNEL = "agent_events";

export type NewAgentEvent = {
  agentId: string;
  eventType: string;
  category: EventCategory;
  source: string;
  sourceEventId: string;
  occurredAt: Date;
  correlationId?: string | null;
  visibility?: EventVisibility;
  data: Record<string, unknown>;
  /** Chain events only. */
  chainId?: number | null;
  blockNumber?: bigint | null;
};

/** A stored event: what was written, every field present, with its id and ingestion time. */
export type AgentEventRow = Required<NewAgentEvent> & { id: bigint; ingestedAt: Date };

export type InsertAgentEventsParameters = { sql: Sql; events: readonly NewAgentEvent[] };
/** The events that were new; a (source, sourceEventId) already stored is skipped. */
export type InsertAgentEventsReturnType = AgentEventRow[];

/**
 * Stores events once per (source, sourceEventId): a redelivery inserts nothing. Run it inside
 * the caller's transaction to tie the insert to other writes (an inbox row marked processed).
 *
 * @example
 * const fresh = await insertAgentEvents({ sql: tx, events: [{ agentId, eventType: "pr.merged",
 *   category: "apps", source: "code-host", sourceEventId: "gh-1", occurredAt: new Date(), data }] });
 */
export async function insertAgentEvents(
  p: InsertAgentEventsParameters,
): Promise<InsertAgentEventsReturnType> {
  if (p.events.length === 0) return [];
  const rows = p.events.map((e) => ({
    agent_id: e.agentId,
    event_type: e.eventType,
    category: e.category,
    source: e.source,
    source_event_id: e.sourceEventId,
    occurred_at: e.occurredAt.toISOString(),
    correlation_id: e.correlationId ?? null,
    visibility: e.visibility ?? "public",
    data: e.data,
    chain_id: e.chainId ?? null,
    block_number: e.blockNumber?.toString() ?? null,
  }));
  // One JSON parameter for the whole batch: a multi-row VALUES list of thousands of
  // parameters costs more to bind and plan than the insert itself.
  const inserted = await p.sql`
    insert into app.agent_events (agent_id, event_type, category, source, source_event_id,
      occurred_at, correlation_id, visibility, data, chain_id, block_number)
    select agent_id, event_type, category, source, source_event_id, occurred_at, correlation_id,
      visibility, data, chain_id, block_number
    from jsonb_to_recordset(${p.sql.json(rows as never)}) as x(agent_id text, event_type text,
      category text, source text, source_event_id text, occurred_at timestamptz,
      correlation_id text, visibility text, data jsonb, chain_id integer, block_number bigint)
    on conflict (source, source_event_id) do nothing
    returning ${p.sql.unsafe(ROW_COLUMNS)}`;
  return inserted as unknown as AgentEventRow[];
}

/** A tailer's position: the last (tx_id, id) it has handed on. */
export type TailCursor = { txId: string; id: bigint };
export const TAIL_START: TailCursor = { txId: "0", id: 0n };

export type TailAgentEventsParameters = { sql: Sql; after: TailCursor; limit: number };
export type TailAgentEventsReturnType = { events: AgentEventRow[]; cursor: TailCursor };

/**
 * The next events after `after` in commit-safe order, for tailers (WebSocket fan-out, outbound
 * dispatch). Rows of transactions still running are held back until every older one commits,
 * so a tailer never skips a row whose id was taken before a row it already saw.
 *
 * @example
 * let cursor = TAIL_START;
 * const { events, cursor: next } = await tailAgentEvents({ sql, after: cursor, limit: 500 });
 */
export async function tailAgentEvents(
  p: TailAgentEventsParameters,
): Promise<TailAgentEventsReturnType> {
  const rows = (await p.sql`
    select ${p.sql.unsafe(ROW_COLUMNS)}, tx_id::text as "txId"
    from app.agent_events
    where (tx_id, id) > (${p.after.txId}::xid8, ${p.after.id.toString()}::bigint)
      and tx_id < pg_snapshot_xmin(pg_current_snapshot())
    order by tx_id, id
    limit ${p.limit}`) as unknown as (AgentEventRow & { txId: string })[];
  const last = rows.at(-1);
  return {
    events: rows.map(({ txId: _, ...row }) => row),
    cursor: last ? { txId: last.txId, id: last.id } : p.after,
  };
}

const ROW_COLUMNS = `id, agent_id as "agentId", event_type as "eventType", category, source,
  source_event_id as "sourceEventId", occurred_at as "occurredAt", ingested_at as "ingestedAt",
  correlation_id as "correlationId", visibility, data, chain_id as "chainId",
  block_number as "blockNumber"`;
