import type { MiddlewareHandler } from "hono";
import type { Logger } from "../../../lib/logger.ts";
import type { AppEnv } from "../../env.ts";

/**
 * Gives each request a child logger tagged with its request id and writes one structured
 * line when the response is sent. Query strings are left out: they may carry cursors or
 * addresses that are noise in logs, and never belong in an access log's key.
 */
export function accessLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async function accessLogMiddleware(c, next) {
    const started = performance.now();
    const log = logger.child({ reqId: c.get("requestId") });
    c.set("log", log);
    await next();
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const entry = { method: c.req.method, path: c.req.path, status: c.res.status, ms };
    // The error goes along so the logger sums up a storm of one cause (a database outage
    // answers every request 503) instead of a line per request; /metrics counts each.
    if (c.res.status >= 500) log.error(c.error ? { ...entry, err: c.error } : entry, "request");
    else log.info(entry, "request");
  };
}
