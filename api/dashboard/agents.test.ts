import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, testApp } from "../testing/app.ts";
import { requestAs } from "../testing/client.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";

// `app.agents` is the service's own table (the launch saga fills it); here it is seeded
// directly. The views are absent, so statuses are the stored ones (routes.test.ts covers
// the join with the indexed tokens).

let db: TestDatabase;
let t: TestApp;

const token = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const LIST = "/v2/agents";
const DETAIL = "/v2/agents/{agent}";

beforeAll(async () => {
  db = await startTestDatabase();
  t = await testApp(db, {
    webUrl: "https://web.example",
    launchpadTokenUrl: "https://lp.example/t/{address}",
  });
  const statuses = ["active", "graduated", "failed", "pending", "active"];
  for (let i = 1; i <= 25; i++) {
    await db.sql`insert into app.agents (agent_id, name, ticker, description, image_url, status,
        wallet_address, treasury_address, eip8004_token_id, token_address, launched_at, featured)
      values (${`agent-${i}`}, ${`Agent ${i}`}, ${`AG${i}`}, ${"An agent that writes notes."},
        ${"https://img.example/a.png"}, ${statuses[i % 5] ?? "active"}, ${token(1000 + i)},
        ${token(2000 + i)}, ${i}, ${token(i)}, ${new Date(Date.UTC(2026, 0, 1, 0, i))}, ${i === 7})`;
  }
  // Not launched yet: no token address, so not listed.
  await db.sql`insert into app.agents (agent_id, name, ticker, description, image_url)
    values ('agent-x', 'Unlaunched', 'UNL', 'Still in the launch saga.', 'https://img.example/u.png')`;
});
afterAll(() => db?.stop());

describe("GET /v2/agents", () => {
  it("lists AgentSummary items newest first with total, limit 20 by default", async () => {
    const { status, body } = await t.get(LIST);
    expect(status).toBe(200);
    expect(t.check(LIST, 200, body)).toEqual([]);
    expect(body.data).toMatchObject({ total: 25, limit: 20, offset: 0 });
    expect(body.data.items).toHaveLength(20);
    expect(body.data.items[0]).toEqual({
      agentId: "agent-25",
      name: "Agent 25",
      ticker: "AG25",
      tokenAddress: token(25),
      status: "active",
      agentPageUrl: `https://web.example/agent/${token(25)}`,
      launchedAt: "2026-01-01T00:25:00.000Z",
      ageSeconds: expect.any(Number),
      // Not valued by the NAV snapshot job yet.
      treasuryUsd: null,
      monthlyBurnUsd: null,
      runwayDays: null,
      runwayAsOf: null,
    });
  });

  it("pages with offset, and past the end still reports the total", async () => {
    const page = await t.get(`${LIST}?limit=10&offset=20`);
    expect(page.body.data.items.map((a: { agentId: string }) => a.agentId)).toEqual([
      "agent-5",
      "agent-4",
      "agent-3",
      "agent-2",
      "agent-1",
    ]);
    const past = await t.get(`${LIST}?offset=500`);
    // No index published here: the envelope says so with a null block.
    expect(past.body.data).toEqual({
      items: [],
      total: 25,
      limit: 20,
      offset: 500,
      indexedBlock: null,
    });
  });

  it("a cached page moves with app.agents: a new agent shows at once; If-None-Match is 304", async () => {
    const first = await t.app.request(`${LIST}?limit=1`);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const again = await t.app.request(`${LIST}?limit=1`, {
      headers: { "if-none-match": etag ?? "" },
    });
    expect(again.status).toBe(304);
    await db.sql`insert into app.agents (agent_id, name, ticker, description, image_url, status,
        token_address, launched_at)
      values ('agent-new', 'Newest', 'NEW', 'Launched just now.', 'https://img.example/n.png',
        'pending', ${token(99)}, ${new Date(Date.UTC(2027, 0, 1))})`;
    try {
      // The tracker reads app.read_versions again after its short max age; the bound is loose
      // (a loaded CI machine answered later than 2 s), the point is that the page moves at all.
      const deadline = Date.now() + 15_000;
      let moved: Response;
      // Each try as a fresh client, paced: on a loaded machine a tight loop met the per-IP
      // limit (429) before the page moved.
      for (;;) {
        moved = await requestAs(t.app, `${LIST}?limit=1`, {
          init: { headers: { "if-none-match": etag ?? "" } },
        });
        if (moved.status !== 304 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(moved.status).toBe(200);
      const body = (await moved.json()) as {
        data: { items: { agentId: string }[]; total: number };
      };
      expect(body.data.items[0]?.agentId).toBe("agent-new");
      expect(body.data.total).toBe(26);
    } finally {
      await db.sql`delete from app.agents where agent_id = 'agent-new'`;
    }
  });

  it("filters by status and featured", async () => {
    const failed = await t.get(`${LIST}?status=failed&limit=100`);
    expect(failed.body.data.total).toBe(5);
    for (const a of failed.body.data.items) expect(a.status).toBe("failed");
    const featured = await t.get(`${LIST}?featured=true`);
    expect(featured.body.data.items.map((a: { agentId: string }) => a.agentId)).toEqual([
      "agent-7",
    ]);
    expect((await t.get(`${LIST}?featured=false`)).body.data.total).toBe(24);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=abc", "limit"],
    ["limit=2.5", "limit"],
    ["offset=-1", "offset"],
    ["status=launched", "status"],
    ["featured=yes", "featured"],
    ["sort=volume", "sort"],
    ["sort=", "sort"],
    ["order=up", "order"],
  ])("?%s is 400 validation_failed naming %s", async (query, path) => {
    const { status, body } = await t.get(`${LIST}?${query}`);
    expect(status).toBe(400);
    expect(t.check(LIST, 400, body)).toEqual([]);
    expect(body).toMatchObject({ ok: false, error: "validation_failed" });
    expect(body.details).toEqual([{ path, message: expect.any(String) }]);
    expect(body.message).toContain(path);
  });
});

describe("GET /v2/agents/{agent}", () => {
  it("answers AgentDetail, for an address in any case, lowercase out", async () => {
    const { status, body } = await t.get(
      `/v2/agents/${token(0xab).toUpperCase().replace("0X", "0x")}`,
    );
    expect(status).toBe(404);
    const ok = await t.get(`/v2/agents/0x${"0".repeat(39)}C`);
    expect(ok.status).toBe(200);
    expect(t.check(DETAIL, 200, ok.body)).toEqual([]);
    expect(ok.body.data).toEqual({
      agentId: "agent-12",
      name: "Agent 12",
      ticker: "AG12",
      tokenAddress: token(12),
      status: "failed",
      agentPageUrl: `https://web.example/agent/${token(12)}`,
      description: "An agent that writes notes.",
      imageUrl: "https://img.example/a.png",
      walletAddress: token(1012),
      treasuryAddress: token(2012),
      eip8004TokenId: "12",
      launchpadUrl: `https://lp.example/t/${token(12)}`,
      launchedAt: "2026-01-01T00:12:00.000Z",
      ageSeconds: expect.any(Number),
      treasuryUsd: null,
      monthlyBurnUsd: null,
      runwayDays: null,
      runwayAsOf: null,
      // No index published here.
      taxIncome: null,
      firstBuy: null,
      // The dashboard's part: nothing written yet; launch wallets listed.
      persona: null,
      apps: [],
      burnConfig: [],
      featured: false,
      featuredCount: 0,
      wallets: [
        {
          chain: "bsc",
          address: token(1012),
          role: "agent",
          label: "steward wallet",
          builtIn: true,
        },
        {
          chain: "bsc",
          address: token(2012),
          role: "treasury",
          label: "treasury Safe",
          builtIn: true,
        },
      ],
      identity: null,
      policy: null,
      policyStatus: "none",
    });
    expect(t.check(DETAIL, 404, body)).toEqual([]);
    expect(body).toMatchObject({ ok: false, error: "not_found" });
  });

  it("answers the same agent by its id as by its token address", async () => {
    const byId = await t.get("/v2/agents/agent-12");
    expect(byId.status).toBe(200);
    const byToken = (await t.get(`/v2/agents/${token(12)}`)).body;
    // The same answer but its age, which counts the seconds and may tick between the reads.
    const age = (b: typeof byToken) => b.data.ageSeconds as number;
    expect(age(byToken) - age(byId.body)).toBeGreaterThanOrEqual(0);
    expect(age(byToken) - age(byId.body)).toBeLessThanOrEqual(1);
    expect({ ...byId.body, data: { ...byId.body.data, ageSeconds: 0 } }).toEqual({
      ...byToken,
      data: { ...byToken.data, ageSeconds: 0 },
    });
    // An agent with no token yet is not in the directory: 404, as for an unknown id.
    for (const id of ["agent-x", "agent-999"]) {
      const { status, body } = await t.get(`/v2/agents/${id}`);
      expect(status, id).toBe(404);
      expect(t.check(DETAIL, 404, body)).toEqual([]);
    }
  });

  it.each(["0x123", "0xZZ00000000000000000000000000000000000001", "a".repeat(65)])(
    "%s is 400 validation_failed",
    async (bad) => {
      const { status, body } = await t.get(`/v2/agents/${bad}`);
      expect(status).toBe(400);
      expect(body.details).toEqual([{ path: "agent", message: expect.any(String) }]);
      expect(t.check(DETAIL, 400, body)).toEqual([]);
    },
  );
});
