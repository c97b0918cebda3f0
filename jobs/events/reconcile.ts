import type { Sql } from "../../lib/db/client.ts";
import { insertAgentEvents, type NewAgentEvent } from "../../lib/events/store.ts";

/** An agent whose chain rows above `fromBlock` are compared with the index (-1n: all of them). */
export type WindowTarget = { agentId: string; fromBlock: bigint };

export type ReconcileWindowReturnType = { inserted: number; updated: number; deleted: number };

/**
 * Makes the feed's chain rows of one `source` equal to `want` (what the index holds now)
 * inside each target's window (blocks above its `fromBlock`): rows the index no longer holds
 * are deleted, rows whose block or data changed are rewritten in place (same id, new `tx_id`,
 * so tailers see an update), new ones are inserted. Data is compared whole, key order
 * ignored. Run it in the transaction that also moves the projection's position, so a crash
 * leaves both or neither. Shared by the BSC and the Arbitrum projectors.
 *
 * @example
 * const r = await reconcileWindow(tx, { source: "evm-indexer:bsc",
 *   targets: [{ agentId: "a1", fromBlock: 1000n }] }, events);
 * // r = { inserted: 2, updated: 0, deleted: 1 }
 */
export async function reconcileWindow(
  tx: Sql,
  p: { source: string; targets: readonly WindowTarget[] },
  want: readonly NewAgentEvent[],
): Promise<ReconcileWindowReturnType> {
  if (p.targets.length === 0) return { inserted: 0, updated: 0, deleted: 0 };
  const windows = p.targets.map((t) => ({
    agent_id: t.agentId,
    from_block: t.fromBlock.toString(),
  }));
  const have = await tx<{ sid: string; block: string; data: Record<string, unknown> }[]>`
    select e.source_event_id as sid, e.block_number::text as block, e.data
    from app.agent_events e
    join jsonb_to_recordset(${tx.json(windows as never)})
      as ag(agent_id text, from_block numeric) on ag.agent_id = e.agent_id
    where e.source = ${p.source} and e.block_number > ag.from_block`;
  const wantBy = new Map(want.map((e) => [e.sourceEventId, e]));
  const haveBy = new Map(have.map((h) => [h.sid, h]));
  const gone = have.filter((h) => !wantBy.has(h.sid)).map((h) => h.sid);
  const fresh = want.filter((e) => !haveBy.has(e.sourceEventId));
  const changed = want.filter((e) => {
    const h = haveBy.get(e.sourceEventId);
    return h && (h.block !== String(e.blockNumber) || !sameJson(h.data, e.data));
  });
  if (gone.length > 0) {
    await tx`delete from app.agent_events where source = ${p.source} and source_event_id = any(${gone})`;
  }
  for (const e of changed) {
    await tx`update app.agent_events set data = ${tx.json(e.data as never)},
      block_number = ${String(e.blockNumber)}, occurred_at = ${e.occurredAt},
      correlation_id = ${e.correlationId ?? null}, tx_id = pg_current_xact_id()
      where source = ${p.source} and source_event_id = ${e.sourceEventId}`;
  }
  const inserted = await insertAgentEvents({ sql: tx, events: fresh });
  return { inserted: inserted.length, updated: changed.length, deleted: gone.length };
}

/**
 * Where a projector stands (`app.projection_position`): the head of its last pass, which every
 * agent it follows was projected to; null before its first pass.
 *
 * @example
 * const at = await readPosition(tx, "evm-indexer:bsc"); // "1200" or null
 */
export async function readPosition(tx: Sql, source: string): Promise<string | null> {
  const [row] = await tx<{ projected_to: string }[]>`
    select projected_to::text from app.projection_position where source = ${source}`;
  return row?.projected_to ?? null;
}

/** Moves a projector's position to `head` (in the pass's transaction). */
export async function writePosition(tx: Sql, source: string, head: bigint): Promise<void> {
  await tx`insert into app.projection_position (source, projected_to) values (${source}, ${head.toString()})
    on conflict (source) do update set projected_to = excluded.projected_to, updated_at = now()`;
}

/**
 * The block above which an agent is re-read: its last projected block (capped at the index
 * head, which a reset chain may have put below it) minus the reorg window; -1n, the whole
 * history, when it was never projected or what it follows changed.
 *
 * @example
 * windowStart({ projectedTo: "1000", reset: false, head: 1200n, window: 256n }); // 744n
 */
export function windowStart(p: {
  projectedTo: string | null;
  reset: boolean;
  head: bigint;
  window: bigint;
}): bigint {
  if (p.projectedTo === null || p.reset) return -1n;
  const to = BigInt(p.projectedTo);
  const start = (to < p.head ? to : p.head) - p.window;
  return start > -1n ? start : -1n;
}

/** Equal JSON values whatever the key order (jsonb hands keys back in its own order). */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}
