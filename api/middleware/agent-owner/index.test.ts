import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, type IssuedKey, revokeKeys } from "../../../lib/agents/keys.ts";
import { renderError } from "../../errors.ts";
import { startTestDatabase, type TestDatabase } from "../../testing/postgres.ts";
import { agentOf } from "../agent-path/index.ts";
import { type AgentOwnerEnv, agentOwner } from "./index.ts";

const ADMIN = "operator-token-of-at-least-32-characters!";
const TOKEN = "0x00000000000000000000000000000000000a11ce";
let db: TestDatabase;
let mine: IssuedKey;
let other: IssuedKey;
beforeAll(async () => {
  db = await startTestDatabase();
  mine = await createAgent(db.sql, { name: "Mine" });
  other = await createAgent(db.sql, { name: "Other" });
  await db.sql`update app.agents set token_address = ${TOKEN} where agent_id = ${mine.agentId}`;
});
afterAll(() => db?.stop());

function app(adminToken?: string) {
  const a = new Hono<AgentOwnerEnv>();
  a.put("/a/:agent", agentOwner({ sql: db.sql, adminToken }), (c) =>
    c.text(`${c.get("actor").kind}:${c.get("actor").id}->${agentOf(c).agentId}`),
  );
  a.onError((e, c) => renderError(c, e));
  return a;
}

async function as(ref: string, headers: Record<string, string>, adminToken = ADMIN) {
  const res = await app(adminToken).request(`/a/${ref}`, { method: "PUT", headers });
  return res.ok ? await res.text() : ((await res.json()) as { error: string }).error;
}

describe("agentOwner", () => {
  it("lets through the agent's own key, by token address or id, and the operator", async () => {
    const own = `agent:${mine.agentId}->${mine.agentId}`;
    expect(await as(TOKEN, { authorization: `Bearer ${mine.apiKey}` })).toBe(own);
    expect(await as(mine.agentId, { "x-agent-api-key": mine.apiKey })).toBe(own);
    expect(await as(TOKEN, { authorization: `Bearer ${ADMIN}` })).toBe(
      `operator:admin-api->${mine.agentId}`,
    );
  });

  it("refuses another agent's key on either identifier, and checks credentials first", async () => {
    for (const ref of [TOKEN, mine.agentId]) {
      expect(await as(ref, { authorization: `Bearer ${other.apiKey}` })).toBe("not_authorized");
    }
    // Credentials before the path: no key on an unknown or malformed agent is still 401.
    expect(await as("no-such-agent", {})).toBe("AGENT_AUTH_MISSING");
    expect(await as("0x12", { authorization: `Bearer ${ADMIN}x` })).toBe("AGENT_AUTH_INVALID");
    expect(await as("0x12", { authorization: `Bearer ${mine.apiKey}` })).toBe("validation_failed");
    expect(await as("no-such-agent", { authorization: `Bearer ${mine.apiKey}` })).toBe("not_found");
  });

  it("needs the agent:write scope and an unrevoked key", async () => {
    await db.sql`update app.agent_keys set scopes = '{read:*}' where agent_id = ${mine.agentId}`;
    expect(await as(TOKEN, { authorization: `Bearer ${mine.apiKey}` })).toBe(
      "AGENT_SCOPE_FORBIDDEN",
    );
    await db.sql`update app.agent_keys set scopes = '{agent:write}' where agent_id = ${mine.agentId}`;
    expect(await as(TOKEN, { authorization: `Bearer ${mine.apiKey}` })).toBe(
      `agent:${mine.agentId}->${mine.agentId}`,
    );
    await revokeKeys(db.sql, { agentId: mine.agentId });
    expect(await as(TOKEN, { authorization: `Bearer ${mine.apiKey}` })).toBe("AGENT_AUTH_INVALID");
  });

  it("has no operator when no token is configured", async () => {
    expect(await as(TOKEN, { authorization: `Bearer ${ADMIN}` }, "")).toBe("AGENT_AUTH_INVALID");
  });
});
