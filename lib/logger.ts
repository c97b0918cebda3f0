import { type Logger, pino } from "pino";
import { LOG_LIMITS } from "./limits.ts";
import { errorThrottle } from "./log-throttle.ts";
import { secretUrlRedactor, secretUrlsOf } from "./secret-urls.ts";

export type { Logger };

/** pino's number for `warn`: warnings and errors that carry an error are throttled. */
const WARN = 40;

export type CreateLoggerOptions = {
  errorIntervalMs?: number;
  destination?: pino.DestinationStream;
  /**
   * Credential-bearing URLs to hide wherever they appear in an entry (`secretUrlsOf(config)`);
   * those of the process's environment are hidden too.
   */
  secretUrls?: readonly string[];
};

/**
 * Structured JSON logs, one line per entry, tagged with the role that wrote it. Secrets are
 * never passed to the logger; the redaction list is a second line of defence, and so is the
 * hiding of RPC keys and database passwords in the written line (viem's errors print the RPC
 * URL in their message and stack). An error of one cause (a database that is down, whichever
 * loop hit it) is logged in full once, then summed up once per `LOG_LIMITS.errorIntervalMs`:
 * "database unreachable (ECONNREFUSED): 412 errors in the last 30 s".
 *
 * @example
 * const log = createLogger("worker", config.LOG_LEVEL, { secretUrls: secretUrlsOf(config) });
 */
export function createLogger(
  role: string,
  level: string = process.env.LOG_LEVEL ?? "info",
  options: CreateLoggerOptions = {},
): Logger {
  const redact = secretUrlRedactor([...secretUrlsOf(process.env), ...(options.secretUrls ?? [])]);
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
        // The whole line, after every serializer: an error's message, stack and fields alike.
        streamWrite: redact,
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
