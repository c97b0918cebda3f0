import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, revokeKeys } from "../../../lib/agents/keys.ts";
import type { AppEnv } from "../../env.ts";
import { startTestDatabase, type TestDatabase } from "../../testing/postgres.ts";
import { identify } from "./index.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(() => db?.stop());

describe("identify", () => {
  it("names the agent of a valid key, and leaves anything else anonymous", async () => {
    const app = new Hono<AppEnv>().use(identify({ sql: db.sql }));
    app.get("/who", (c) => c.text(c.get("principal")?.id ?? "anonymous"));
    const issued = await createAgent(db.sql, { name: "Who" });
    const who = async (headers: Record<string, string>) =>
      (await app.request("/who", { headers })).text();
    expect(await who({ authorization: `Bearer ${issued.apiKey}` })).toBe(issued.agentId);
    expect(await who({ "x-agent-api-key": issued.apiKey })).toBe(issued.agentId);
    expect(await who({})).toBe("anonymous");
    expect(await who({ authorization: "Bearer agk_nope" })).toBe("anonymous");
    await revokeKeys(db.sql, { agentId: issued.agentId });
    expect(await who({ "x-agent-api-key": issued.apiKey })).toBe("anonymous");
  });
});
