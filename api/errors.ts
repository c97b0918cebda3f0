import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

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
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
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

export type ErrorDetail = { path: string; message: string };

export type HttpErrorParameters = {
  message: string;
  details?: ErrorDetail[];
  headers?: Record<string, string>;
  cause?: unknown;
};

/**
 * The one HTTP error type: thrown anywhere in a handler, rendered as the error envelope
 * `{ok:false, error, message, details?}` with the status of its code.
 *
 * @example
 * throw new HttpError("not_found", { message: "no token 0xabc… is indexed" });
 */
export class HttpError extends Error {
  override name = "HttpError";
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;
  constructor(code: ErrorCode, p: HttpErrorParameters) {
    super(p.message, { cause: p.cause });
    this.code = code;
    this.details = p.details;
    this.headers = p.headers;
  }
  get status(): ContentfulStatusCode {
    return ERROR_STATUS[this.code];
  }
}

export type ErrorBody = {
  ok: false;
  error: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  requestId?: string;
};

/** Renders an error as the envelope; anything that is not an HttpError is an internal error. */
export function renderError(c: Context, error: unknown) {
  const e =
    error instanceof HttpError
      ? error
      : new HttpError("internal_error", {
          message: "internal error; retry with backoff",
          cause: error,
        });
  if (e.code === "internal_error") {
    c.get("log")?.error({ err: e.cause ?? e }, "unhandled error");
  }
  for (const [k, v] of Object.entries(e.headers ?? {})) c.header(k, v);
  const body: ErrorBody = { ok: false, error: e.code, message: e.message };
  if (e.details) body.details = e.details;
  const requestId = c.get("requestId");
  if (requestId) body.requestId = requestId;
  return c.json(body, e.status);
}
