import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { reconcileWindow, windowStart } from "../../jobs/events/reconcile.ts";
import type { Sql } from "../../lib/db/client.ts";
import { insertAgentEvents, type NewAgentEvent } from "../../lib/events/store.ts";

// The one reconciliation both chain projectors run (BSC and Arbitrum), against a real
// Postgres: after a reorg the feed's rows of the window equal what the index holds, row by
// row, and nothing the index still holds unchanged is touched (a tailer would see it again).

const SOURCE = "evm-indexer:arbitrum";
let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
  await db.sql`insert into app.agents (agent_id, name) values ('r-a', 'A'), ('r-b', 'B')`;
}, 120_000);
afterAll(() => db?.stop());

const ev = (
  sid: string,
  block: number,
  data: Record<string, unknown>,
  over: Partial<NewAgentEvent> = {},
): NewAgentEvent => ({
  agentId: "r-a",
  eventType: "bridge.completed",
  category: "treasury",
  source: SOURCE,
  sourceEventId: sid,
  occurredAt: new Date(1_700_000_000_000 + block * 1000),
  data,
  chainId: 42161,
  blockNumber: BigInt(block),
  ...over,
});

type Row = {
  sid: string;
  id: string;
  tx: string;
  block: string;
  data: Record<string, unknown>;
  correlation_id: string | null;
};
async function rows(source = SOURCE): Promise<Map<string, Row>> {
  const r = await db.sql<Row[]>`
    select source_event_id as sid, id::text, tx_id::text as tx, block_number::text as block, data,
      correlation_id
    from app.agent_events where source = ${source}`;
  return new Map(r.map((x) => [x.sid, x]));
}
const run = (want: NewAgentEvent[], targets = [{ agentId: "r-a", fromBlock: 100n }]) =>
  db.sql.begin((tx) => reconcileWindow(tx as unknown as Sql, { source: SOURCE, targets }, want));

describe("reconcileWindow", () => {
  it("inserts, leaves unchanged rows alone, rewrites changed data, removes what is gone", async () => {
    const kept = ev("k:in", 101, { amount: "1", txHash: "0xk", wallet: "0xw" });
    const moved = ev("m:in", 102, { amount: "2", txHash: "0xm", wallet: "0xw" });
    const redone = ev("r:in", 103, { amount: "3", txHash: "0xr", wallet: "0xw" });
    const orphan = ev("o:in", 104, { amount: "4", txHash: "0xo", wallet: "0xw" });
    expect(await run([kept, moved, redone, orphan])).toEqual({
      inserted: 4,
      updated: 0,
      deleted: 0,
    });
    const before = await rows();

    // The same index again, keys in another order: nothing to do, no row rewritten.
    const reordered = { wallet: "0xw", txHash: "0xk", amount: "1" };
    expect(await run([{ ...kept, data: reordered }, moved, redone, orphan])).toEqual({
      inserted: 0,
      updated: 0,
      deleted: 0,
    });
    expect(await rows()).toEqual(before);

    // A reorg: one log moved to another block, one kept its block and tx hash but carries
    // another amount (a comparison by block and tx hash alone would miss it), one is gone,
    // one is new.
    const fresh = ev("n:in", 105, { amount: "5", txHash: "0xn", wallet: "0xw" });
    const want = [
      kept,
      { ...moved, blockNumber: 110n, data: { ...moved.data } },
      { ...redone, data: { ...redone.data, amount: "30" }, correlationId: "c-1" },
      fresh,
    ];
    expect(await run(want)).toEqual({ inserted: 1, updated: 2, deleted: 1 });
    const after = await rows();
    expect([...after.keys()].sort()).toEqual(["k:in", "m:in", "n:in", "r:in"]);
    expect(after.get("k:in")).toEqual(before.get("k:in"));
    // Rewritten in place: same id, new content, a new tx_id (tailers see it as an update).
    const r = after.get("r:in");
    expect(r?.id).toBe(before.get("r:in")?.id);
    expect(r?.data).toEqual({ amount: "30", txHash: "0xr", wallet: "0xw" });
    expect(r).toMatchObject({ correlation_id: "c-1" });
    expect(BigInt(r?.tx as string)).toBeGreaterThan(BigInt(before.get("r:in")?.tx as string));
    const m = after.get("m:in");
    expect(m?.id).toBe(before.get("m:in")?.id);
    expect(m?.block).toBe("110");
    expect(m?.tx).not.toBe(before.get("m:in")?.tx);
  });

  it("touches neither rows below the window, nor other agents, nor other sources", async () => {
    const old = ev("old:in", 50, { amount: "9" });
    const other = ev("b:in", 120, { amount: "8" }, { agentId: "r-b" });
    const bsc = ev("bsc:1", 120, { amount: "7" }, { source: "evm-indexer:bsc" });
    // Stored earlier (the window has moved past block 50 since), by another agent, by the
    // other chain's projector.
    await insertAgentEvents({ sql: db.sql, events: [old, other, bsc] });
    // r-a's window above 100 now holds nothing: its rows above 100 go, block 50 stays.
    expect(await run([])).toEqual({ inserted: 0, updated: 0, deleted: 4 });
    expect([...(await rows()).keys()].sort()).toEqual(["b:in", "old:in"]);
    expect([...(await rows("evm-indexer:bsc")).keys()]).toEqual(["bsc:1"]);
  });

  it("starts the window a reorg depth below the last projected block (or the head)", () => {
    const w = { head: 1200n, window: 256n };
    expect(windowStart({ projectedTo: "1000", reset: false, ...w })).toBe(744n);
    // A chain reset below what was projected: re-read from below the new head.
    expect(windowStart({ projectedTo: "5000", reset: false, ...w })).toBe(944n);
    expect(windowStart({ projectedTo: "100", reset: false, ...w })).toBe(-1n);
    expect(windowStart({ projectedTo: null, reset: false, ...w })).toBe(-1n);
    expect(windowStart({ projectedTo: "1000", reset: true, ...w })).toBe(-1n);
  });
});
