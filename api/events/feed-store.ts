import type { Sql } from "../../lib/db/client.ts";
import { renderEvent } from "../../lib/events/render.ts";
import type { AgentEventRow, EventCategory, EventVisibility } from "../../lib/events/store.ts";
import { malformedCursor } from "../http/cursor.ts";

export type FeedFilter = {
  agentId: string;
  limit: number;
  cursor?: string;
  eventType?: string[];
  source?: string;
  category?: EventCategory;
  visibility: EventVisibility;
};

/** A stored event as the feed reads it: the id as text, and its position for the cursor. */
type Row = Omit<AgentEventRow, "id" | "agentId" | "chainId" | "blockNumber"> & {
  id: string;
  micros: string;
};

/**
 * A page of an agent's feed, newest first by (occurred_at, id), keyset-paged: a cursor is the
 * last item's exact position (microseconds since the epoch and id), so new events never shift
 * a page.
 */
export async function readFeed(sql: Sql, f: FeedFilter) {
  const after = f.cursor ? decodeFeedCursor(f.cursor) : undefined;
  const rows = await sql<Row[]>`
    select id::text, event_type as "eventType", category, source, source_event_id as "sourceEventId",
      occurred_at as "occurredAt", ingested_at as "ingestedAt", correlation_id as "correlationId",
      visibility, data, (extract(epoch from occurred_at) * 1000000)::bigint::text as micros
    from app.agent_events
    where agent_id = ${f.agentId} and visibility = ${f.visibility}
      ${f.eventType?.length ? sql`and event_type = any(${f.eventType})` : sql``}
      ${f.source ? sql`and source = ${f.source}` : sql``}
      ${f.category ? sql`and category = ${f.category}` : sql``}
      ${
        after
          ? sql`and (occurred_at, id) < ('epoch'::timestamptz + ${after.micros}::bigint * interval '1 microsecond', ${after.id}::bigint)`
          : sql``
      }
    order by occurred_at desc, id desc
    limit ${f.limit + 1}`;
  const page = rows.slice(0, f.limit);
  const last = page.at(-1);
  return {
    items: page.map(({ micros: _, ...r }) => ({
      ...r,
      occurredAt: r.occurredAt.toISOString(),
      ingestedAt: r.ingestedAt.toISOString(),
      text: renderEvent(r.eventType, r.data),
    })),
    nextCursor: rows.length > f.limit && last ? encodeFeedCursor(last.micros, last.id) : null,
  };
}

/** Counts per type, source and category over the given visibilities. */
export async function readStats(sql: Sql, agentId: string, visibility: EventVisibility[]) {
  const rows = await sql<{ k: string; v: string; n: number }[]>`
    select 't' as k, event_type as v, count(*)::int as n from app.agent_events
      where agent_id = ${agentId} and visibility = any(${visibility}) group by event_type
    union all
    select 's', source, count(*)::int from app.agent_events
      where agent_id = ${agentId} and visibility = any(${visibility}) group by source
    union all
    select 'c', category, count(*)::int from app.agent_events
      where agent_id = ${agentId} and visibility = any(${visibility}) group by category`;
  const pick = (k: string) =>
    Object.fromEntries(rows.filter((r) => r.k === k).map((r) => [r.v, r.n]));
  const byCategory = pick("c");
  return {
    total: Object.values(byCategory).reduce((s, n) => s + n, 0),
    byEventType: pick("t"),
    bySource: pick("s"),
    byCategory,
    visibility,
  };
}

function encodeFeedCursor(micros: string, id: string): string {
  return Buffer.from(`e:${micros}:${id}`).toString("base64url");
}

function decodeFeedCursor(cursor: string): { micros: string; id: string } {
  const text = /^[A-Za-z0-9_-]{1,100}$/.test(cursor)
    ? Buffer.from(cursor, "base64url").toString()
    : "";
  const m = /^e:(-?\d{1,19}):(\d{1,19})$/.exec(text);
  if (!m?.[1] || !m[2]) {
    throw malformedCursor();
  }
  return { micros: m[1], id: m[2] };
}
