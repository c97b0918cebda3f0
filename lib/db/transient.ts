/**
 * SQLSTATEs of a database that is down, restarting or busy, not of a bad query: class 08
 * (connection exception), 53300 too many connections, 57P01-57P03 (shutdown, crash, starting
 * up), 40P01 deadlock, 40001 serialization failure, 55P03 lock not available (lock_timeout).
 */
const TRANSIENT_STATES = new Set(["53300", "57P01", "57P02", "57P03", "40P01", "40001", "55P03"]);

/** postgres.js's own codes when the socket fails or closes, and Node's for a refused connect. */
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
]);

/**
 * True when `error` (or an error in its cause chain) says the database is unavailable for a
 * moment (restarting, unreachable, a lock conflict it gave up on) rather than that the request
 * is wrong: the caller answers 503 with `Retry-After`, and the same request later succeeds.
 *
 * @example
 * if (isDatabaseUnavailable(error)) throw new HttpError("unavailable", { ... });
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      if (TRANSIENT_STATES.has(code) || CONNECTION_CODES.has(code)) return true;
      if (code.startsWith("08") && code.length === 5) return true;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** A lock conflict (deadlock victim or lock_timeout): the same statement may succeed at once. */
export function isLockConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "40P01" || code === "55P03";
}
