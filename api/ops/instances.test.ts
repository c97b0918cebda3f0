import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deepHealth } from "../../lib/health/deep.ts";
import { readInstances, startHeartbeat } from "../../lib/heartbeat/instances.ts";
import { createLogger } from "../../lib/logger.ts";
import { INSTANCE_DATABASES } from "../../lib/metrics/instances.ts";
import { registry } from "../../lib/metrics/registry.ts";
import { createApp } from "../app.ts";
import { defaultApiSettings } from "../settings.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";

const ROOT = join(import.meta.dirname, "..", "..");
/** Silence after which the checks below report an instance (production: 30 s). */
const SILENT_AFTER_MS = 1_500;

/** A worker-role process of its own that beats every 200 ms until killed. */
function beatingProcess(url: string): Promise<{ child: ChildProcess; id: string }> {
  const code = `
    import { createSql } from ${JSON.stringify(join(ROOT, "lib/db/client.ts"))};
    import { startHeartbeat } from ${JSON.stringify(join(ROOT, "lib/heartbeat/instances.ts"))};
    const sql = createSql(process.env.TEST_DB, { max: 1 });
    const hb = startHeartbeat({ sql, role: "worker", everyMs: 200 });
    process.stdout.write(hb.identity.instanceId + "\\n");
    process.on("SIGTERM", async () => { await hb.stop(); await sql.end(); process.exit(0); });
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
    env: { ...process.env, TEST_DB: url },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (c) => reject(new Error(`heartbeat process exited ${c}`)));
    child.stdout?.once("data", (d: Buffer) => resolve({ child, id: d.toString().trim() }));
  });
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The series of a gauge now, as label sets with values. */
async function series(name: string) {
  const m = await registry.getSingleMetric(name)?.get();
  return (m?.values ?? []).map(
    (v) => ({ ...v.labels, value: v.value }) as Record<string, string | number>,
  );
}

describe("health per instance", () => {
  let db: TestDatabase;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    await db.stop();
  });

  it("names a worker that stopped beating while another is live, in deep health and /metrics", async () => {
    const a = await beatingProcess(db.url);
    const b = await beatingProcess(db.url);
    children.push(a.child, b.child);
    const deep = () =>
      deepHealth({
        sql: db.sql,
        viewsSchema: "onchain",
        headBlock: async () => 1n,
        silentAfterMs: SILENT_AFTER_MS,
      });
    const both = await until(deep, (h) => h.instances.worker?.live === 2);
    expect(both.instances.worker).toEqual({ live: 2, silent: [] });

    // Crashed: no clean stop, its row stays and goes silent.
    a.child.kill("SIGKILL");
    const after = await until(deep, (h) => h.instances.worker?.silent.length === 1);
    expect(after.instances.worker?.live).toBe(1);
    expect(after.instances.worker?.silent).toMatchObject([{ instance: a.id, pid: a.child.pid }]);
    expect(after.checks.worker.state).toBe("up");

    const remove = INSTANCE_DATABASES.add({ sql: db.sql, silentAfterMs: SILENT_AFTER_MS });
    try {
      expect(await series("launchpad_instances")).toEqual(
        expect.arrayContaining([
          { role: "worker", state: "live", value: 1 },
          { role: "worker", state: "silent", value: 1 },
        ]),
      );
      const silent = await series("launchpad_instance_silent_seconds");
      expect(silent.map((s) => s.instance)).toEqual([a.id]);
      expect(silent[0]?.role).toBe("worker");
      // And as a scrape of the API serves it.
      const app = createApp({
        logger: createLogger("test", "silent"),
        env: "test",
        sql: db.sql,
        settings: defaultApiSettings(),
      });
      const text = await (await app.request("/metrics")).text();
      expect(text).toContain(`launchpad_instances{role="worker",state="silent"} 1`);
      expect(text).toMatch(new RegExp(`launchpad_instance_silent_seconds\\{[^}]*${a.id}`));
    } finally {
      remove();
    }

    // A clean stop leaves: the last worker gone, the role is down and nothing is live.
    b.child.kill("SIGTERM");
    const none = await until(deep, (h) => h.instances.worker?.live === 0);
    expect(none.instances.worker?.silent.map((s) => s.instance)).toEqual([a.id]);
    expect(none.checks.worker.state).toBe("down");
    expect(none.healthy).toBe(false);
  });

  it("prunes a row silent for longer than a day, and keeps a recent crash", async () => {
    const insert = (id: string, hoursAgo: number) => db.sql`
      insert into app.instances (instance_id, role, host, pid, version, started_at, beat_at)
      values (${id}, 'api', 'old-host', 1, '0.0.1', now() - interval '30 hours',
        now() - make_interval(hours => ${hoursAgo}))`;
    await insert("api-longdead", 25);
    await insert("api-recent", 1);
    const hb = startHeartbeat({ sql: db.sql, role: "api", everyMs: 200 });
    try {
      const byRole = await until(
        () => readInstances(db.sql),
        (r) => (r.api?.live.length ?? 0) === 1,
      );
      const ids = [...(byRole.api?.live ?? []), ...(byRole.api?.silent ?? [])].map(
        (i) => i.instanceId,
      );
      expect(ids).not.toContain("api-longdead");
      expect(ids).toContain("api-recent");
      expect(ids).toContain(hb.identity.instanceId);
    } finally {
      await hb.stop();
    }
  });
});
