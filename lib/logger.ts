import { type Logger, pino } from "pino";
import { LOG_LIMITS } from "./limits.ts";
import { errorThrottle } from "./log-throttle.ts";

export type { Logger };

/** pino's number for `warn`: warnings and errors that carry an error are throttled. */
const WARN = 40;

/**
 * Structured JSON logs, one line per entry, tagged with the role that wrote it. Secrets are
 * never passed to the logger; the redaction list is a second line of defence. An error of one
 * cause (a database that is down, whichever loop hit it) is logged in full once, then summed
 * up once per `LOG_LIMITS.errorIntervalMs`: "database unreachable (ECONNREFUSED): 412 errors
 * in the last 30 s".
 */
export function createLogger(
  role: string,
  level: string = process.env.LOG_LEVEL ?? "info",
  options: { errorIntervalMs?: number; destination?: pino.DestinationStream } = {},
): Logger {
  const throttle = errorThrottle({
    intervalMs: options.errorIntervalMs ?? LOG_LIMITS.errorIntervalMs,
    summary: (s) =>
      logger.warn(
        { cause: s.cause, errors: s.errors, sites: s.sites },
        `${s.cause}: ${s.errors} more errors in the last ${Math.round(s.intervalMs / 1000)} s`,
      ),
  });
  const logger: Logger = pino(
    {
      level,
      base: { role },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          "req.headers.authorization",
          "req.headers.cookie",
          "req.headers['x-agent-api-key']",
          "*.password",
          "*.secret",
          "*.apiKey",
        ],
        censor: "[redacted]",
      },
      hooks: {
        logMethod(args, method, lvl) {
          const error = loggedError(args[0]);
          if (lvl < WARN || error === undefined) return method.apply(this, args);
          const site = typeof args[1] === "string" ? args[1] : "error";
          if (throttle.offer(error, site)) method.apply(this, args);
        },
      },
    },
    options.destination,
  );
  return logger;
}

/** The error an entry carries: `log.warn({ err }, msg)` or `log.error(error)`. */
function loggedError(first: unknown): unknown {
  if (first instanceof Error) return first;
  if (first && typeof first === "object" && "err" in first) return (first as { err: unknown }).err;
  return undefined;
}
