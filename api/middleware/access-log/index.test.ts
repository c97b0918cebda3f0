import { Writable } from "node:stream";
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../../lib/logger.ts";
import type { AppEnv } from "../../env.ts";
import { accessLog } from "./index.ts";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)));
      cb();
    },
  });
  return { lines, logger: pino({ level: "info" }, stream) };
}

describe("accessLog", () => {
  it("writes one line per request with method, path, status and the request id", async () => {
    const { lines, logger } = capture();
    const app = new Hono<AppEnv>().use(requestId()).use(accessLog(logger));
    app.get("/x", (c) => c.text("ok"));
    const res = await app.request("/x?secret=1", { headers: { "x-request-id": "abc" } });
    expect(res.status).toBe(200);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: "GET", path: "/x", status: 200, reqId: "abc" });
    expect(JSON.stringify(lines[0])).not.toContain("secret");
  });

  it("logs server errors at error level", async () => {
    const { lines, logger } = capture();
    const app = new Hono<AppEnv>().use(requestId()).use(accessLog(logger));
    app.get("/boom", (c) => c.text("no", 503));
    await app.request("/boom");
    expect(lines[0]).toMatchObject({ status: 503, level: 50 });
  });

  it("sums up a storm of 503s of one cause (the database away) instead of a line per request", async () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _enc, cb) {
        lines.push(JSON.parse(String(chunk)));
        cb();
      },
    });
    const logger = createLogger("api", "info", { destination });
    const app = new Hono<AppEnv>().use(requestId()).use(accessLog(logger));
    app.get("/read", () => {
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
        code: "ECONNREFUSED",
      });
    });
    app.onError((_e, c) => c.text("unavailable", 503));
    for (let i = 0; i < 100; i++) expect((await app.request("/read")).status).toBe(503);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 503, level: 50, msg: "request" });
  });
});
