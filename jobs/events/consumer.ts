import type { Sql } from "../../lib/db/client.ts";
import { LaunchpadError } from "../../lib/errors.ts";
import { categoryOf } from "../../lib/events/catalog.ts";
import {
  type EventCategory,
  type EventVisibility,
  insertAgentEvents,
  type NewAgentEvent,
} from "../../lib/events/store.ts";
import { EVENT_JOB_LIMITS } from "../limits.ts";
import { rollUpInference } from "./rollup.ts";

type InboxRow = {
  id: string;
  source: string;
  source_event_id: string;
  event_type: string;
  agent_id: string | null;
  payload: {
    agentId: string;
    occurredAt: string;
    correlationId?: string;
    visibility?: EventVisibility;
    category?: EventCategory;
    data: Record<string, unknown>;
  };
};

export type DrainResult = { processed: number; failed: number };

/**
 * Consumes up to one batch of the inbox: its rows become agent events and are marked
 * processed in one transaction, so a crash anywhere leaves either all of it or none. A batch
 * that fails is retried row by row: a poison row records its error and, after
 * `maxAttempts`, moves to the dead letter (`failed_at`) without holding up the others.
 *
 * @example
 * while ((await drainInboxBatch(sql)).processed > 0) {}
 */
export async function drainInboxBatch(
  sql: Sql,
  batchSize: number = EVENT_JOB_LIMITS.batchSize,
  /** Runs inside the batch's transaction before it commits (the kill test's crash point). */
  beforeCommit?: (rows: number) => void,
): Promise<DrainResult> {
  let ids: string[] = [];
  try {
    const n = await sql.begin(async (tx) => {
      const rows = await lockPending(tx as unknown as Sql, batchSize);
      ids = rows.map((r) => r.id);
      await consume(tx as unknown as Sql, rows);
      if (rows.length > 0) beforeCommit?.(rows.length);
      return rows.length;
    });
    return { processed: n, failed: 0 };
  } catch {
    let processed = 0;
    let failed = 0;
    for (const id of ids) {
      if (await consumeOne(sql, id)) processed++;
      else failed++;
    }
    return { processed, failed };
  }
}

async function lockPending(sql: Sql, limit: number, id?: string): Promise<InboxRow[]> {
  return (await sql`
    select id::text, source, source_event_id, event_type, agent_id, payload
    from app.webhook_inbox
    where processed_at is null and failed_at is null ${id ? sql`and id = ${id}` : sql``}
    order by id limit ${limit}
    for update skip locked`) as unknown as InboxRow[];
}

async function consume(sql: Sql, rows: InboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  const plain: NewAgentEvent[] = [];
  const spent: Parameters<typeof rollUpInference>[0][number][] = [];
  for (const r of rows) {
    if (!r.agent_id) throw new PoisonError(`agent ${r.payload?.agentId} is unknown`);
    const occurredAt = new Date(r.payload.occurredAt);
    if (Number.isNaN(occurredAt.getTime()))
      throw new PoisonError(`occurredAt ${r.payload.occurredAt} is not a date`);
    if (r.event_type === "inference.spent") {
      spent.push({ agentId: r.agent_id, occurredAt, data: r.payload.data as never });
      continue;
    }
    plain.push({
      agentId: r.agent_id,
      eventType: r.event_type,
      category: categoryOf(r.event_type, r.payload.category),
      source: r.source,
      sourceEventId: r.source_event_id,
      occurredAt,
      correlationId: r.payload.correlationId ?? safeCorrelation(r.event_type, r.payload.data),
      visibility: r.payload.visibility ?? "public",
      data: r.payload.data,
    });
  }
  await insertAgentEvents({ sql, events: plain });
  const rolled = rollUpInference(spent);
  if (rolled.length > 0) {
    const values = rolled.map((e) => ({
      agent_id: e.agentId,
      event_type: e.eventType,
      category: e.category,
      source: e.source,
      source_event_id: e.sourceEventId,
      occurred_at: e.occurredAt,
      visibility: "public",
      data: e.data,
    }));
    // A minute already in the feed takes the new deliveries' sums; the new tx_id hands the
    // updated row to tailers again (docs/events.md "Rolled-up rows").
    await sql`
      insert into app.agent_events ${sql(values as never)}
      on conflict (source, source_event_id) do update
      set data = app.merge_inference_rollup(agent_events.data, excluded.data),
          tx_id = pg_current_xact_id()`;
  }
  await sql`update app.webhook_inbox set processed_at = now(), attempts = attempts + 1
    where id = any(${rows.map((r) => r.id)}::bigint[])`;
}

/** One row in its own transaction; on failure its error is recorded (dead letter at the limit). */
async function consumeOne(sql: Sql, id: string): Promise<boolean> {
  try {
    await sql.begin(async (tx) =>
      consume(tx as unknown as Sql, await lockPending(tx as unknown as Sql, 1, id)),
    );
    return true;
  } catch (error) {
    if (!isPoison(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    await sql`update app.webhook_inbox set attempts = attempts + 1, last_error = ${message.slice(0, 2000)},
      failed_at = case when attempts + 1 >= ${EVENT_JOB_LIMITS.maxAttempts} then now() end
      where id = ${id} and processed_at is null`;
    return false;
  }
}

/** A row that cannot become an event however often it is tried. */
class PoisonError extends LaunchpadError<"INBOX_ROW_POISON"> {
  override name = "PoisonError";
  constructor(message: string) {
    super("INBOX_ROW_POISON", { message });
  }
}

/**
 * Failures that follow the row, not the moment: ours, and SQL data and constraint errors
 * (classes 22, 23). A lost connection or a restarting Postgres is not the row's fault: it is
 * thrown on, the row stays pending and is retried on the next drain.
 */
function isPoison(error: unknown): boolean {
  if (error instanceof PoisonError) return true;
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && /^(22|23)/.test(code);
}

/** Dead-lettered inbox rows, newest first, for `launchpad webhooks failed`. */
export async function failedWebhooks(sql: Sql, limit = 100) {
  return sql<
    {
      id: string;
      source: string;
      sourceEventId: string;
      eventType: string;
      attempts: number;
      lastError: string | null;
      receivedAt: Date;
      failedAt: Date;
    }[]
  >`select id::text, source, source_event_id as "sourceEventId", event_type as "eventType",
      attempts, last_error as "lastError", received_at as "receivedAt", failed_at as "failedAt"
    from app.webhook_inbox where failed_at is not null order by failed_at desc, id desc limit ${limit}`;
}

/** Puts a dead-lettered row back in the queue; false when `id` is not a failed row. */
export async function retryWebhook(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql`update app.webhook_inbox set failed_at = null, attempts = 0
    where id = ${id} and failed_at is not null returning id`;
  return rows.length > 0;
}

/** The steward's co-signature joins its Safe transaction's group (the safeTxHash). */
function safeCorrelation(eventType: string, data: Record<string, unknown> | undefined) {
  const h = data?.safeTxHash;
  return eventType.startsWith("safe.tx.") && typeof h === "string" ? h.toLowerCase() : null;
}
