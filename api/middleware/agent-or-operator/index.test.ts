import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, revokeKeys } from "../../../lib/agents/keys.ts";
import type { AppEnv } from "../../env.ts";
import { renderError } from "../../errors.ts";
import { startTestDatabase, type TestDatabase } from "../../testing/postgres.ts";
import { agentOrOperator } from "./index.ts";

const ADMIN = "operator-token-of-at-least-32-characters!";
let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(() => db?.stop());

describe("agentOrOperator", () => {
  it("lets through the agent's own key and the operator, nobody else", async () => {
    const app = new Hono<AppEnv>();
    app.use("/a/:agentId", agentOrOperator({ sql: db.sql, adminToken: ADMIN }));
    app.get("/a/:agentId", (c) => c.text(`${c.get("principal")?.kind}:${c.get("principal")?.id}`));
    app.onError((e, c) => renderError(c, e));
    const mine = await createAgent(db.sql, { name: "Mine" });
    const other = await createAgent(db.sql, { name: "Other" });
    const as = async (headers: Record<string, string>) => {
      const res = await app.request(`/a/${mine.agentId}`, { headers });
      return res.ok ? await res.text() : ((await res.json()) as { error: string }).error;
    };
    expect(await as({ authorization: `Bearer ${mine.apiKey}` })).toBe(`agent:${mine.agentId}`);
    expect(await as({ "x-agent-api-key": mine.apiKey })).toBe(`agent:${mine.agentId}`);
    expect(await as({ authorization: `Bearer ${ADMIN}` })).toBe("user:operator");
    expect(await as({})).toBe("AGENT_AUTH_MISSING");
    expect(await as({ authorization: `Bearer ${ADMIN}x` })).toBe("AGENT_AUTH_INVALID");
    expect(await as({ authorization: `Bearer ${other.apiKey}` })).toBe("not_authorized");
    await db.sql`update app.agent_keys set scopes = '{read:*}' where agent_id = ${mine.agentId}`;
    expect(await as({ authorization: `Bearer ${mine.apiKey}` })).toBe("AGENT_SCOPE_FORBIDDEN");
    await db.sql`update app.agent_keys set scopes = '{agent:write}' where agent_id = ${mine.agentId}`;
    expect(await as({ authorization: `Bearer ${mine.apiKey}` })).toBe(`agent:${mine.agentId}`);
    await revokeKeys(db.sql, { agentId: mine.agentId });
    expect(await as({ authorization: `Bearer ${mine.apiKey}` })).toBe("AGENT_AUTH_INVALID");
  });

  it("has no operator when no token is configured", async () => {
    const app = new Hono<AppEnv>();
    app.use("/a/:agentId", agentOrOperator({ sql: db.sql }));
    app.get("/a/:agentId", (c) => c.text("in"));
    app.onError((e, c) => renderError(c, e));
    const res = await app.request("/a/x", { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(res.status).toBe(401);
  });
});
