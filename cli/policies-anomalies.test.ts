import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, testApp } from "../api/testing/app.ts";
import { startTestDatabase, type TestDatabase } from "../api/testing/postgres.ts";
import { createAgent } from "../lib/agents/keys.ts";
import { runCli } from "../test/helpers/cli.ts";

// The anomaly panel in the CLI names the event an anomaly is about, as the API does: an
// operator goes from a row to the event.

const ADMIN = "anomalies-test-admin-token-0123456789";
let db: TestDatabase;
let t: TestApp;
let env: Record<string, string>;
let eventId: string;

beforeAll(async () => {
  db = await startTestDatabase();
  t = await testApp(db, {}, "test", { adminToken: ADMIN });
  env = { DATABASE_URL: db.url, LAUNCHPAD_DATA_DIR: mkdtempSync(join(tmpdir(), "anomalies-")) };
  const { agentId } = await createAgent(db.sql, { name: "anomalies-test" });
  const [event] = await db.sql<{ id: string }[]>`insert into app.agent_events
      (agent_id, event_type, category, source, source_event_id, occurred_at, data)
    values (${agentId}, 'policy.applied', 'trading', 'steward', 'forged-open-1', now(),
      ${db.sql.json({ leverage: 20 })}) returning id::text`;
  eventId = (event as { id: string }).id;
  await db.sql`insert into app.policy_anomalies (agent_id, event_id, source_event_id, rule,
      expected, actual, severity, policy_id, policy_version, dedup_key, detected_at)
    values (${agentId}, ${eventId}, 'forged-open-1', 'maxLeverage', '<= 3', '20', 'high',
      'p1', 2, 'event-finding', now() - interval '1 minute'),
      (${agentId}, null, null, 'maxOpenPositions', '<= 3', '4', 'medium', 'p1', 2,
      'venue-finding', now())`;
}, 120_000);
afterAll(() => db?.stop());

describe("launchpad policies anomalies", () => {
  it("shows each anomaly's event (id and kind) in the table and in --json, as the API does", async () => {
    const api = await t.get("/v2/admin/anomalies", {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(api.status).toBe(200);
    const [venue, event] = api.body.data.items;
    expect(event).toMatchObject({ eventId, eventKind: "policy.applied", rule: "maxLeverage" });
    expect(venue).toMatchObject({ eventId: null, eventKind: null, rule: "maxOpenPositions" });

    const json = await runCli(["policies", "anomalies", "--json"], env);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(api.body.data.items);

    const table = await runCli(["policies", "anomalies"], env);
    expect(table.code, table.stderr).toBe(0);
    const [first, second] = table.stdout.trim().split("\n");
    expect(first).toContain("maxOpenPositions");
    expect(first).toContain("event -");
    expect(second).toContain("maxLeverage");
    expect(second).toContain(`event #${eventId} policy.applied`);
  });
});
