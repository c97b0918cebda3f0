import { Writable } from "node:stream";
import postgres from "postgres";
import { expect, it } from "vitest";
import { freePort } from "./local/net.ts";
import { errorCause, errorThrottle, type ThrottleSummary } from "./log-throttle.ts";
import { createLogger } from "./logger.ts";

/** What postgres.js really throws at a database that is not there. */
async function refusedError(): Promise<unknown> {
  const sql = postgres(`postgres://x:y@127.0.0.1:${await freePort()}/z`, {
    max: 1,
    connect_timeout: 2,
  });
  const error = await sql`select 1`.then(
    () => undefined,
    (e: unknown) => e,
  );
  await sql.end({ timeout: 0 });
  return error;
}

it("names a database that cannot be reached by its code, whichever query failed", async () => {
  expect(errorCause(await refusedError())).toBe("database unreachable (ECONNREFUSED)");
  expect(errorCause(new Error("boom"))).toBe("Error: boom");
});

it("lets the first error of a cause through, then one summary per interval with the count by site", async () => {
  let t = 0;
  const summaries: ThrottleSummary[] = [];
  const throttle = errorThrottle({
    intervalMs: 30_000,
    now: () => t,
    summary: (s) => summaries.push(s),
  });
  const error = await refusedError();
  const passed: boolean[] = [];
  for (let i = 0; i < 400; i++) {
    t += 50; // 20 a second, for 20 s
    passed.push(throttle.offer(error, i % 4 === 0 ? "heartbeat failed" : "pg-boss error"));
  }
  expect(passed.filter(Boolean)).toHaveLength(1);
  expect(summaries).toEqual([]);
  // Another cause is news of its own.
  expect(throttle.offer(new Error("boom"), "poller failed")).toBe(true);
  t += 10_050; // the interval is over: the next error brings the summary
  expect(throttle.offer(error, "heartbeat failed")).toBe(false);
  expect(summaries).toEqual([
    {
      cause: "database unreachable (ECONNREFUSED)",
      errors: 400,
      intervalMs: 30_000,
      sites: { "heartbeat failed": 100, "pg-boss error": 300 },
    },
  ]);
  throttle.flushAll();
  expect(summaries.map((s) => s.cause)).toEqual(["database unreachable (ECONNREFUSED)"]);
});

it("the role's logger writes one line for a storm of database errors, and every other line", async () => {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const l of String(chunk).split("\n")) if (l) lines.push(JSON.parse(l));
      done();
    },
  });
  const log = createLogger("worker", "info", { destination });
  const error = await refusedError();
  for (let i = 0; i < 300; i++) {
    log.error({ err: error }, "pg-boss error");
    log.warn({ err: error }, "heartbeat failed");
  }
  log.info("worker ready");
  log.warn({ err: new Error("bad input") }, "a job failed");
  expect(lines.map((l) => l.msg)).toEqual(["pg-boss error", "worker ready", "a job failed"]);
});
