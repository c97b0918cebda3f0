import { type Logger, pino } from "pino";

export type { Logger };

/**
 * Structured JSON logs, one line per entry, tagged with the role that wrote it. Secrets are
 * never passed to the logger; the redaction list is a second line of defence.
 */
export function createLogger(
  role: string,
  level: string = process.env.LOG_LEVEL ?? "info",
): Logger {
  return pino({
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
  });
}
