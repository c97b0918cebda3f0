import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../lib/local/net.ts";
import { cleanEnv, ROOT } from "../test/helpers/cli.ts";
import { responseChecker } from "./testing/openapi.ts";
import { startTestDatabase, type TestDatabase } from "./testing/postgres.ts";

// Two real `launchpad api` processes on one database: the budget is shared, not per process.

let db: TestDatabase;
const apis: { child: ChildProcess; url: string; dataDir: string }[] = [];

async function startApi(databaseUrl: string) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "launchpad-api-"));
  const child = spawn(process.execPath, [join(ROOT, "bin", "launchpad.js"), "api"], {
    cwd: ROOT,
    env: cleanEnv({
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LAUNCHPAD_DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
    }),
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  apis.push({ child, url, dataDir });
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`${url}/health`)
        .then((r) => r.ok)
        .catch(() => false)
    )
      return url;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("launchpad api did not come up");
}

beforeAll(async () => {
  db = await startTestDatabase();
  await Promise.all([startApi(db.url), startApi(db.url)]);
});
afterAll(async () => {
  for (const a of apis) a.child.kill("SIGTERM");
  await Promise.all(
    apis.map(
      (a) => new Promise((r) => (a.child.exitCode !== null ? r(0) : a.child.once("exit", r))),
    ),
  );
  await db?.stop();
  for (const a of apis) rmSync(a.dataDir, { recursive: true, force: true });
});

describe("rate limit across API processes", () => {
  it("the 61st request in a minute is 429 with Retry-After, wherever it lands", async () => {
    const [a, b] = apis.map((x) => x.url) as [string, string];
    const check = responseChecker((await (await fetch(`${a}/openapi.json`)).json()) as never);
    // Stay inside one window: start right after a reset when the current one nearly ended.
    const probe = await fetch(`${a}/AGENT.md`);
    const left = Number(probe.headers.get("ratelimit-reset"));
    if (left < 15) await new Promise((r) => setTimeout(r, left * 1000 + 200));
    else await db.sql`delete from app.rate_limit`;

    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await fetch(`${i % 2 ? b : a}/v2/agents`);
      statuses.push(res.status);
      expect(res.headers.get("ratelimit-limit")).toBe("60");
      expect(res.headers.get("ratelimit-remaining")).toBe(String(59 - i));
      await res.arrayBuffer();
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    for (const url of [a, b]) {
      const res = await fetch(`${url}/v2/agents`);
      expect(res.status).toBe(429);
      const retry = Number(res.headers.get("retry-after"));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      const body = await res.json();
      expect(body).toMatchObject({ ok: false, error: "rate_limited" });
      expect(check("/v2/agents", "get", 429, body)).toEqual([]);
    }
    // Liveness is never throttled.
    expect((await fetch(`${a}/health`)).status).toBe(200);
  });
});
