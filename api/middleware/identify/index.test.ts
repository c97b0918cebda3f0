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

  it("counts the web role presenting the service key as service:web, and nothing else as it", async () => {
    const serviceKey = "s".repeat(43);
    const app = new Hono<AppEnv>().use(identify({ sql: db.sql, serviceKey }));
    app.get("/who", (c) => {
      const p = c.get("principal");
      return c.text(p ? `${p.kind}:${p.id}` : "anonymous");
    });
    const who = async (headers: Record<string, string>) =>
      (await app.request("/who", { headers })).text();
    expect(await who({ "x-service-key": serviceKey })).toBe("service:web");
    expect(await who({ "x-service-key": `${serviceKey}x` })).toBe("anonymous");
    expect(await who({ "x-service-key": "" })).toBe("anonymous");
    // Without a configured key the header means nothing, whatever it holds.
    const open = new Hono<AppEnv>().use(identify({ sql: db.sql }));
    open.get("/who", (c) => c.text(c.get("principal")?.kind ?? "anonymous"));
    const res = await open.request("/who", { headers: { "x-service-key": serviceKey } });
    expect(await res.text()).toBe("anonymous");
  });

  it("gives the operator token the authenticated budget, as user:operator, and a wrong token none", async () => {
    const adminToken = "a".repeat(40);
    const app = new Hono<AppEnv>().use(identify({ sql: db.sql, adminToken }));
    app.get("/who", (c) => {
      const p = c.get("principal");
      return c.text(p ? `${p.kind}:${p.id}` : "anonymous");
    });
    const who = async (authorization: string) =>
      (await app.request("/who", { headers: { authorization } })).text();
    expect(await who(`Bearer ${adminToken}`)).toBe("user:operator");
    expect(await who(`Bearer ${adminToken}b`)).toBe("anonymous");
    expect(await who(adminToken)).toBe("anonymous");
  });
});
