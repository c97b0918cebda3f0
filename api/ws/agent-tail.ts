import type { Sql } from "../../lib/db/client.ts";
import { type AgentEventRow, tailAgentEvents } from "../../lib/events/store.ts";
import { WS_LIMITS } from "../limits.ts";
import type { Position } from "./cursor.ts";

/** An agent event with its stream position (writing transaction id, row id). */
export type PositionedEvent = { row: AgentEventRow; position: Position };

/**
 * Follows `app.agent_events` from the present on with `tailAgentEvents` (commit-safe order:
 * no row is skipped however transactions interleave).
 */
export class AgentTail {
  cursor: Position | undefined;
  private readonly sql: Sql;
  constructor(sql: Sql) {
    this.sql = sql;
  }

  async read(): Promise<{ added: PositionedEvent[]; more: boolean }> {
    if (this.cursor === undefined) {
      this.cursor = await presentPosition(this.sql);
      return { added: [], more: false };
    }
    const after = { txId: this.cursor[0].toString(), id: this.cursor[1] };
    const { events, positions } = await tailWithPositions(this.sql, after);
    if (positions.length > 0) this.cursor = positions.at(-1) as Position;
    return {
      added: events.map((row, i) => ({ row, position: positions[i] as Position })),
      more: events.length >= WS_LIMITS.tailBatch,
    };
  }
}

/** Everything committed (or below the oldest running transaction) counts as the past. */
async function presentPosition(sql: Sql): Promise<Position> {
  const [r] = await sql<{ x: string }[]>`
    select pg_snapshot_xmin(pg_current_snapshot())::text as x`;
  return [BigInt(r?.x ?? "1") - 1n, 9_223_372_036_854_775_807n];
}

/** `tailAgentEvents` plus each row's own (tx_id, id), which the bridge puts in its cursors. */
async function tailWithPositions(sql: Sql, after: { txId: string; id: bigint }) {
  const { events } = await tailAgentEvents({ sql, after, limit: WS_LIMITS.tailBatch });
  if (events.length === 0) return { events, positions: [] as Position[] };
  const ids = events.map((e) => e.id.toString());
  const txs = await sql<{ id: bigint; tx: string }[]>`
    select id, tx_id::text as tx from app.agent_events where id = any(${ids}::bigint[])`;
  const tx = new Map(txs.map((r) => [r.id.toString(), BigInt(r.tx)]));
  // A row deleted between the two reads (reorg correction) keeps the previous row's position.
  let last: Position = [BigInt(after.txId), after.id];
  const positions = events.map((e) => {
    const t = tx.get(e.id.toString());
    last = t === undefined ? last : [t, e.id];
    return last;
  });
  return { events, positions };
}
