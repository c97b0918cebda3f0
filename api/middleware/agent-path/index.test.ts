import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../../lib/agents/keys.ts";
import type { AppEnv } from "../../env.ts";
import { renderError } from "../../errors.ts";
import { startTestDatabase, type TestDatabase } from "../../testing/postgres.ts";
import { agentOf, agentPath } from "./index.ts";

const TOKEN = "0x00000000000000000000000000000000000a11ce";
let db: TestDatabase;
let agentId: string;
let unlaunched: string;
beforeAll(async () => {
  db = await startTestDatabase();
  agentId = (await createAgent(db.sql, { name: "Launched" })).agentId;
  unlaunched = (await createAgent(db.sql, { name: "Unlaunched" })).agentId;
  await db.sql`update app.agents set token_address = ${TOKEN} where agent_id = ${agentId}`;
});
afterAll(() => db?.stop());

function app() {
  const a = new Hono<AppEnv>();
  a.get("/v2/agents/:agent/x", agentPath({ sql: db.sql }), (c) => {
    const agent = agentOf(c);
    return c.json({ agentId: agent.agentId, token: agent.tokenAddress });
  });
  a.onError((e, c) => renderError(c, e));
  return a;
}

async function get(ref: string) {
  const res = await app().request(`/v2/agents/${ref}/x`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("agentPath", () => {
  it("resolves the token address (any case) and the agent id to the same agent", async () => {
    for (const ref of [TOKEN, TOKEN.toUpperCase().replace("0X", "0x"), agentId]) {
      expect(await get(ref), ref).toEqual({ status: 200, body: { agentId, token: TOKEN } });
    }
  });

  it("resolves an agent that has no token yet by its id", async () => {
    expect(await get(unlaunched)).toEqual({
      status: 200,
      body: { agentId: unlaunched, token: null },
    });
  });

  it("answers 400 for something that starts like an address but is not one", async () => {
    for (const ref of ["0x12", `0x${"zz".repeat(20)}`, `${TOKEN}00`, "x".repeat(65)]) {
      const r = await get(ref);
      expect(r.status, ref).toBe(400);
      expect(r.body).toMatchObject({ error: "validation_failed", details: [{ path: "agent" }] });
    }
  });

  it("answers 404 for an address or an id no agent has", async () => {
    for (const ref of [`0x${"77".repeat(20)}`, "no-such-agent"]) {
      const r = await get(ref);
      expect(r.status, ref).toBe(404);
      expect(r.body.error).toBe("not_found");
    }
  });
});
