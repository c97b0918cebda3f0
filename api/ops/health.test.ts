import { pino } from "pino";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "../../lib/db/client.ts";
import { freePort } from "../../lib/local/net.ts";
import { type App, createApp } from "../app.ts";
import { HEALTH_LIMITS } from "../limits.ts";
import { type ApiSettings, defaultApiSettings } from "../settings.ts";
import { freshIp, requestAs } from "../testing/client.ts";
import { responseChecker } from "../testing/openapi.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";

// GET /health?deep=true through the app on a real Postgres, with no index published and a
// worker that went silent (so the check is 503): what an anonymous caller and the operator
// each see, what many callers cost (every query the app sends is counted, and every RPC head
// read), and the per-client limiter in front of it.

const ADMIN_TOKEN = "health-admin-token-0123456789abcdef0123";
const OPERATOR = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** What the silent worker's row says about its machine: never for anonymous eyes. */
const SILENT = { host: "worker-host-7.internal", pid: 48_213, version: "9.8.7-private" };

let db: TestDatabase;
let check: ReturnType<typeof responseChecker>;
const opened: Sql[] = [];

/** An app over its own database client that counts every query it sends and every RPC read. */
function countedApp(settings: Partial<ApiSettings> = {}, url = db.url) {
  const queries: string[] = [];
  const sql = postgres(url, {
    max: 4,
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
    debug: (_connection, query) => queries.push(query),
  });
  opened.push(sql);
  const rpc = { calls: 0 };
  const app = createApp({
    logger: pino({ level: "silent" }),
    env: "test",
    sql,
    settings: defaultApiSettings({ viewsSchema: "onchain_absent", ...settings }),
    adminToken: ADMIN_TOKEN,
    headBlock: async () => {
      rpc.calls++;
      return 42n;
    },
  });
  // Not the check's cost: the limiter's upserts, and the driver's type lookup on each new
  // connection (concurrent callers open more of the pool).
  const checkQueries = () =>
    queries.filter((q) => !q.includes("app.rate_limit") && !q.includes("pg_catalog.pg_type"))
      .length;
  return { app, rpc, queries, checkQueries };
}

async function deep(app: App, o: { ip?: string; headers?: Record<string, string> } = {}) {
  const res = await requestAs(app, "/health?deep=true", {
    ip: o.ip,
    init: { headers: o.headers },
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: the assertions read into the body
  return { res, status: res.status, text, body: JSON.parse(text) as any };
}

beforeAll(async () => {
  db = await startTestDatabase();
  await db.sql`
    insert into app.instances (instance_id, role, host, pid, version, started_at, beat_at)
    values ('worker-0badc0de', 'worker', ${SILENT.host}, ${SILENT.pid}, ${SILENT.version},
      now() - interval '2 hours', now() - interval '1 hour')`;
  const { app } = countedApp();
  check = responseChecker((await (await app.request("/openapi.json")).json()) as never);
});
afterAll(async () => {
  for (const sql of opened) await sql.end({ timeout: 1 });
  await db?.stop();
});

describe("GET /health?deep=true", () => {
  it("tells an anonymous caller only the status, with the operator's status code; the operator token shows every check and instance", async () => {
    const { app } = countedApp();
    const operator = await deep(app, { headers: OPERATOR });
    expect(operator.status).toBe(503);
    expect(operator.body).toMatchObject({
      ok: false,
      data: {
        checks: { database: { state: "up" }, worker: { state: "down" } },
        instances: { worker: { live: 0, silent: [{ ...SILENT, instance: "worker-0badc0de" }] } },
      },
    });
    expect(check("/health", "get", 503, operator.body)).toEqual([]);

    const wrong = { authorization: `Bearer ${ADMIN_TOKEN.replace("0", "1")}` };
    for (const headers of [{}, wrong] as Record<string, string>[]) {
      const anonymous = await deep(app, { headers });
      expect(anonymous.status).toBe(503);
      expect(anonymous.res.headers.get("retry-after")).toBe(
        operator.res.headers.get("retry-after"),
      );
      expect(anonymous.body).toEqual({
        ok: false,
        data: { service: "launchpad", env: "test", uptimeSeconds: expect.any(Number) },
      });
      for (const secret of Object.values(SILENT))
        expect(anonymous.text).not.toContain(String(secret));
      expect(check("/health", "get", 503, anonymous.body)).toEqual([]);
    }
  });

  it("never shows an anonymous caller the database's error text", async () => {
    const down = `postgres://launchpad:secret@127.0.0.1:${await freePort()}/launchpad`;
    const { app } = countedApp({}, down);
    const operator = await deep(app, { headers: OPERATOR });
    expect(operator.status).toBe(503);
    const detail: string = operator.body.data.checks.database.detail;
    expect(detail).toMatch(/ECONNREFUSED/);
    const anonymous = await deep(app);
    expect(anonymous.status).toBe(503);
    expect(anonymous.text).not.toContain("ECONNREFUSED");
    expect(anonymous.text).not.toContain(detail);
  });

  it("serves every caller within a few seconds from one check: 30 calls cost one RPC read and one set of queries", async () => {
    const { app, rpc, checkQueries } = countedApp();
    await deep(app);
    const one = checkQueries();
    expect(rpc.calls).toBe(1);
    expect(one).toBeGreaterThan(0);
    // Concurrent and back to back, anonymous and operator, each from its own address.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => deep(app, { headers: i % 2 ? OPERATOR : {} })),
    );
    for (let i = 0; i < 9; i++) await deep(app, { headers: i % 2 ? OPERATOR : {} });
    expect(rpc.calls).toBe(1);
    expect(checkQueries()).toBe(one);
    // Once the answer is older than the cache keeps it, the next caller gets a new check.
    await new Promise((r) => setTimeout(r, HEALTH_LIMITS.deepCacheMs + 100));
    await deep(app);
    expect(rpc.calls).toBe(2);
    expect(checkQueries()).toBeGreaterThan(one);
  });

  it("counts deep calls against the caller's budget, while plain /health is never counted and sends no query", async () => {
    // Fixed windows of the clock: do not start in a minute's last seconds.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 5_000) await new Promise((r) => setTimeout(r, left + 500));
    const { app, queries } = countedApp({ rateLimit: { unauthenticated: 2, authenticated: 600 } });
    const ip = freshIp();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await deep(app, { ip })).status);
    expect(statuses).toEqual([503, 503, 429]);
    const refused = await deep(app, { ip });
    expect(refused.body).toMatchObject({ ok: false, error: "rate_limited" });
    expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    const sent = queries.length;
    for (let i = 0; i < 5; i++) {
      const plain = await requestAs(app, "/health", { ip });
      expect(plain.status).toBe(200);
      expect(plain.headers.get("ratelimit-limit")).toBeNull();
    }
    expect(queries.length).toBe(sent);
  });
});
