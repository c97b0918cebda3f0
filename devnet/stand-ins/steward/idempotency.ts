import { createHash } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { StewardStore } from "./store.ts";

/** Steward's accepted keys: 8-255 printable ASCII characters. */
const KEY = /^[\x21-\x7e]{8,255}$/;

/**
 * Steward's idempotency middleware for mutating requests carrying `Idempotency-Key`: a
 * malformed key is 400; the key used for another request (method, path or body differ) 409;
 * one still running 409 with `Retry-After: 1`; a completed one answers exactly as the first
 * time (`Idempotency-Replayed: true`). A 5xx is not kept, so a retry runs again.
 *
 * @example
 * app.use("*", idempotency(store));
 */
export function idempotency(store: StewardStore): MiddlewareHandler {
  const running = new Set<string>();
  return async function stewardIdempotency(c, next) {
    const key = c.req.header("idempotency-key");
    if (!key || !["POST", "PUT", "PATCH", "DELETE"].includes(c.req.method)) return next();
    if (!KEY.test(key)) return c.json({ ok: false, error: "Invalid Idempotency-Key header" }, 400);
    const body = await c.req.raw.clone().text();
    const fingerprint = createHash("sha256")
      .update(`${c.req.method}\n${c.req.path}\n${body}`)
      .digest("hex");
    const done = store.idempotent(key);
    if (done) {
      if (done.fingerprint !== fingerprint) {
        return c.json(
          { ok: false, error: "Idempotency-Key was already used for a different request" },
          409,
        );
      }
      c.header("Idempotency-Replayed", "true");
      return c.json(done.body as object, done.status as 200);
    }
    if (running.has(key)) {
      c.header("Retry-After", "1");
      return c.json({ ok: false, error: "Idempotency key is already processing" }, 409);
    }
    running.add(key);
    try {
      await next();
      if (c.res.status < 500) {
        const answer = await c.res.clone().json();
        store.setIdempotent(key, { fingerprint, status: c.res.status, body: answer });
      }
      c.header("Idempotency-Replayed", "false");
    } finally {
      running.delete(key);
    }
  };
}
