import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { UnknownAgentError } from "../lib/agents/keys.ts";
import { MissingRecordError } from "../lib/agents/records.ts";
import { isDatabaseUnavailable } from "../lib/db/transient.ts";
import { type ErrorDetail, issueDetails, LaunchpadError } from "../lib/errors.ts";
import { ImageCheckError } from "../lib/image/check.ts";
import { OutboundWebhookError } from "../lib/webhooks/outbound/errors.ts";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "./limits.ts";

/**
 * The one error taxonomy of the API: every code the service answers with and its HTTP status.
 * Lower-case codes are the spec's envelope codes; upper-case ones belong to the launch endpoint.
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  not_authenticated: 401,
  not_authorized: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  upstream_error: 502,
  unavailable: 503,
  // The signer refused (or held for a person) a signing call under the agent's policy.
  policy_denied: 403,
  policy_needs_manual: 403,
  INVALID_REQUEST: 400,
  AGENT_AUTH_MISSING: 401,
  AGENT_AUTH_INVALID: 401,
  AGENT_SCOPE_FORBIDDEN: 403,
  AGENT_ID_MISMATCH: 403,
  AGENT_ALREADY_LAUNCHED: 409,
  LAUNCHPAD_ERROR: 502,
  ORCHESTRATOR_UNAVAIL: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * What a failed launch tells its caller, per code: fixed words, never the cause (an upstream's
 * URL, a database error, a signer's message). The caller quotes the launch's id to an operator,
 * who reads the cause at `GET /v2/admin/launches/{launchId}` (and in the logs).
 */
export const LAUNCH_FAILURE_WORDS = {
  LAUNCHPAD_ERROR: "the launch failed at four.meme or on chain",
  ORCHESTRATOR_UNAVAIL:
    "the launch failed at the signer, the chain or the launch service's own infrastructure",
  upstream_error: "the relayer's createLaunch transaction failed; nothing was created",
  unavailable: "the createLaunch transaction is not mined yet",
} as const satisfies Partial<Record<ErrorCode, string>>;

export type LaunchFailureCode = keyof typeof LAUNCH_FAILURE_WORDS;

/**
 * The whole public sentence of a failed launch: its code's fixed words, what to do, and the id
 * to quote to an operator.
 *
 * @example
 * launchFailureMessage("LAUNCHPAD_ERROR", launchId);
 * // "the launch failed at four.meme or on chain; retry after 1 s, 2 s, 4 s with the same
 * //  Idempotency-Key, then quote launch <launchId> to the operator"
 */
export function launchFailureMessage(code: LaunchFailureCode, launchId: string): string {
  // A deposit launch that failed has no launch number: its id is its request's.
  const what = code === "upstream_error" || code === "unavailable" ? "launch request" : "launch";
  const then = `quote ${what} ${launchId} to the operator`;
  if (code === "unavailable")
    return `${LAUNCH_FAILURE_WORDS[code]}; retry with the same Idempotency-Key, or ${then}`;
  return `${LAUNCH_FAILURE_WORDS[code]}; retry after 1 s, 2 s, 4 s with the same Idempotency-Key, then ${then}`;
}

/** SQLSTATEs of text the database cannot hold: 22021 invalid byte sequence (NUL), 22P05. */
const UNSTORABLE_TEXT = new Set(["22021", "22P05"]);

function isPostgresError(e: unknown): e is { code: string } {
  return (
    e instanceof Error &&
    e.name === "PostgresError" &&
    typeof (e as { code?: unknown }).code === "string"
  );
}

/** The statuses Hono's HTTPException is thrown with inside the app, as envelope codes. */
const HTTP_EXCEPTION_CODES: Partial<Record<number, ErrorCode>> = {
  400: "validation_failed",
  401: "not_authenticated",
  404: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

export type { ErrorDetail };

export type HttpErrorParameters = {
  message: string;
  details?: ErrorDetail[];
  headers?: Record<string, string>;
  cause?: unknown;
  /** A finer reason inside the code (the launch envelope's `code`, e.g. IMAGE_NOT_200). */
  reason?: string;
  /** The deposit launch request a failure is about: the id its caller quotes to an operator. */
  launchRequestId?: string;
};

/**
 * The one HTTP error type: thrown anywhere in a handler, rendered as the error envelope
 * `{ok:false, error, message, details?}` with the status of its code.
 *
 * @example
 * throw new HttpError("not_found", { message: "no token 0xabc… is indexed" });
 */
export class HttpError extends LaunchpadError<ErrorCode> {
  override name = "HttpError";
  declare readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;
  readonly reason?: string;
  readonly launchRequestId?: string;
  constructor(code: ErrorCode, p: HttpErrorParameters) {
    super(code, {
      message: p.message,
      details: p.details,
      cause: p.cause,
      retryable: code === "rate_limited" || ERROR_STATUS[code] >= 500,
    });
    this.headers = p.headers;
    this.reason = p.reason;
    this.launchRequestId = p.launchRequestId;
  }
  get status(): ContentfulStatusCode {
    return ERROR_STATUS[this.code];
  }
}

/**
 * Zod issues as an HTTP error: every field problem in `details`, all of them in the message.
 *
 * @example
 * if (!r.success) throw invalidInput("validation_failed", r.error.issues);
 */
export function invalidInput(
  code: "validation_failed" | "INVALID_REQUEST",
  issues: Parameters<typeof issueDetails>[0],
): HttpError {
  const details = issueDetails(issues);
  return new HttpError(code, {
    message: details.map((d) => `${d.path}: ${d.message}`).join("; "),
    details,
  });
}

/** Which error envelope a route answers with: the spec's common one or the launch endpoint's. */
export type Envelope = "common" | "launch";

/**
 * The one mapping from any thrown error to an HTTP error: HttpErrors as they are, domain
 * errors by their code, anything else an internal error (in the launch envelope, its
 * retryable ORCHESTRATOR_UNAVAIL).
 */
export function toHttpError(error: unknown, envelope: Envelope = "common"): HttpError {
  if (error instanceof HttpError) return error;
  // Hono's own refusals (validators, the media-type gate) are bare HTTPExceptions.
  if (error instanceof HTTPException) {
    const code = HTTP_EXCEPTION_CODES[error.status];
    if (code) {
      const launch = envelope === "launch" && code === "validation_failed";
      return new HttpError(launch ? "INVALID_REQUEST" : code, {
        // Hono's 415 says only "Unsupported Media Type": say what to send instead.
        message:
          code === "unsupported_media_type"
            ? "send the body as JSON with Content-Type: application/json"
            : error.message || "the request is malformed",
        ...(code === "validation_failed"
          ? { details: [{ path: "(root)", message: error.message || "malformed request" }] }
          : {}),
      });
    }
  }
  // Text Postgres cannot store (a NUL character, invalid encoding) came from the client.
  if (isPostgresError(error) && UNSTORABLE_TEXT.has(error.code)) {
    return new HttpError(envelope === "launch" ? "INVALID_REQUEST" : "validation_failed", {
      message: "a value contains a NUL character or text that is not valid UTF-8",
      details: [{ path: "(root)", message: "NUL characters are not accepted" }],
    });
  }
  if (error instanceof ImageCheckError) {
    return new HttpError(envelope === "launch" ? "INVALID_REQUEST" : "validation_failed", {
      message: error.message,
      details: [{ path: "imageUrl", message: error.message }],
      reason: error.code,
      cause: error,
    });
  }
  // The database restarting, unreachable or in a lock conflict: the request was fine.
  if (isDatabaseUnavailable(error)) {
    return new HttpError(envelope === "launch" ? "ORCHESTRATOR_UNAVAIL" : "unavailable", {
      message: "the database is unavailable for a moment; retry after Retry-After seconds",
      headers: { "Retry-After": String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
      cause: error,
    });
  }
  if (error instanceof UnknownAgentError || error instanceof MissingRecordError)
    return new HttpError("not_found", { message: error.message, cause: error });
  if (error instanceof OutboundWebhookError) {
    return new HttpError(error.code === "WEBHOOK_NOT_FOUND" ? "not_found" : "conflict", {
      message: error.message,
      cause: error,
    });
  }
  return envelope === "launch"
    ? new HttpError("ORCHESTRATOR_UNAVAIL", {
        message: "the launch service failed; retry with backoff",
        cause: error,
      })
    : new HttpError("internal_error", {
        message: "internal error; retry with backoff",
        cause: error,
      });
}

export type ErrorBody = {
  ok: false;
  error: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  /** A finer reason inside the code (a policy denial's code, e.g. leverage_above_max). */
  code?: string;
  /** A failed deposit launch's request, to quote to an operator. */
  launchRequestId?: string;
  requestId?: string;
};

/** The launch endpoint's error body (documented as LaunchError in agent-launch/schema.ts). */
export type LaunchErrorBody = {
  ok: false;
  error: string;
  detail?: string;
  code?: string;
  details?: ErrorDetail[];
  /** The launch attempt a failure (or an unfinished launch) is about, to quote to an operator. */
  launchId?: string;
};

/**
 * The one renderer: any error as the route's envelope with its status and headers. The common
 * envelope is `{ok:false, error, message, details?, requestId?}`; the launch endpoint's (api/AGENT.md)
 * is `{ok:false, error, detail, code?, details?}`.
 *
 * @example
 * app.onError((error, c) => renderError(c, error));
 */
export function renderError(c: Context, error: unknown, envelope: Envelope = "common") {
  // A body over the limit fails whoever reads it; a parser may have wrapped that as a 400.
  const e = c.get("bodyTooLarge")
    ? new HttpError("payload_too_large", { message: "the request body is too large" })
    : toHttpError(error, envelope);
  // The cause of a 5xx goes to the log, never into the answer: an unexpected error in full, a
  // mapped one (an upstream or the chain failing) with the cause it carries.
  if (e.status >= 500 && !(error instanceof HttpError)) {
    c.get("log")?.error(
      { err: e.cause ?? e },
      envelope === "launch" ? "launch error" : "unhandled error",
    );
  } else if (e.status >= 500 && e.cause !== undefined) {
    const ids = e.launchRequestId ? { launchRequestId: e.launchRequestId } : {};
    c.get("log")?.warn({ err: e.cause, code: e.code, ...ids }, e.message);
  }
  for (const [k, v] of Object.entries(e.headers ?? {})) c.header(k, v);
  // Every 503 tells the client when to come back (a retryable outage, never a bare failure).
  if (e.status === 503 && !e.headers?.["Retry-After"])
    c.header("Retry-After", String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  if (envelope === "launch") {
    const body: LaunchErrorBody = { ok: false, error: e.code, detail: e.message };
    if (e.reason) body.code = e.reason;
    if (e.details) body.details = e.details;
    return c.json(body, e.status);
  }
  const body: ErrorBody = { ok: false, error: e.code, message: e.message };
  if (e.details) body.details = e.details;
  if (e.reason && e.code.startsWith("policy_")) body.code = e.reason;
  if (e.launchRequestId) body.launchRequestId = e.launchRequestId;
  const requestId = c.get("requestId");
  if (requestId) body.requestId = requestId;
  return c.json(body, e.status);
}
