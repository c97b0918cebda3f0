import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import {
  insertAgentEvents,
  type NewAgentEvent,
  TAIL_START,
  tailAgentEvents,
} from "../../lib/events/store.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
  await db.sql`insert into app.agents (agent_id, name) values ('agent-a', 'A')`;
});
afterAll(() => db?.stop());

const event = (id: string): NewAgentEvent => ({
  agentId: "agent-a",
  eventType: "pr.merged",
  category: "apps",
  source: "code-host",
  sourceEventId: id,
  occurredAt: new Date("2026-11-01T00:00:00Z"),
  data: { repo: "a/b", number: Number(id.replace(/\D/g, "")) },
});

describe("agent_events store", () => {
  it("stores a (source, sourceEventId) once however often it is delivered", async () => {
    const first = await insertAgentEvents({ sql: db.sql, events: [event("e1"), event("e2")] });
    const again = await insertAgentEvents({ sql: db.sql, events: [event("e2"), event("e3")] });
    expect(first.map((r) => r.sourceEventId)).toEqual(["e1", "e2"]);
    expect(again.map((r) => r.sourceEventId)).toEqual(["e3"]);
    const [row] = await db.sql`select count(*)::int as n from app.agent_events`;
    expect(row?.n).toBe(3);
  });

  it("holds back a row whose transaction is still open, then hands it on without a gap", async () => {
    const { cursor } = await tailAgentEvents({ sql: db.sql, after: TAIL_START, limit: 100 });
    // A transaction takes an id, stays open while a later one commits.
    const reserved = db.sql.reserve();
    const slow = await reserved;
    await slow`begin`;
    await insertAgentEvents({ sql: slow as never, events: [event("slow4")] });
    await insertAgentEvents({ sql: db.sql, events: [event("fast5")] });
    const during = await tailAgentEvents({ sql: db.sql, after: cursor, limit: 100 });
    expect(during.events).toEqual([]);
    await slow`commit`;
    slow.release();
    const after = await tailAgentEvents({ sql: db.sql, after: cursor, limit: 100 });
    expect(after.events.map((e) => e.sourceEventId)).toEqual(["slow4", "fast5"]);
    const rest = await tailAgentEvents({ sql: db.sql, after: after.cursor, limit: 100 });
    expect(rest.events).toEqual([]);
  });
});
