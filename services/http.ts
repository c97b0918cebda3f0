import { setTimeout as sleep } from "node:timers/promises";
import { FormData, fetch } from "undici";
import type { z } from "zod";
import { LaunchpadError } from "../lib/errors.ts";
import { UPSTREAM_LIMITS } from "./limits.ts";

export type UpstreamService = "steward" | "launchpad" | "x" | "hyperliquid" | "safe-tx-service";

/**
 * A failed call to an external service. `kind` says what the caller can do about it:
 * `unavailable` (unreachable, timed out, 5xx: retry later) or `rejected` (4xx: the request
 * itself was refused), `bad_response` (the answer was not what the protocol promises).
 */
export class UpstreamError extends LaunchpadError<`UPSTREAM_${Uppercase<UpstreamKind>}`> {
  override name = "UpstreamError";
  declare readonly details?: string;
  readonly service: UpstreamService;
  readonly kind: UpstreamKind;
  readonly status?: number;
  constructor(
    service: UpstreamService,
    kind: UpstreamKind,
    message: string,
    o: { status?: number; details?: string; cause?: unknown } = {},
  ) {
    super(`UPSTREAM_${kind.toUpperCase() as Uppercase<UpstreamKind>}`, {
      message: `${service}: ${message}`,
      details: o.details,
      cause: o.cause,
      retryable: kind === "unavailable",
    });
    this.service = service;
    this.kind = kind;
    this.status = o.status;
  }

  /** True when the service refused the request itself with this HTTP status (a 4xx). */
  refusedWith(status: number): boolean {
    return this.kind === "rejected" && this.status === status;
  }
}

export type UpstreamKind = "unavailable" | "rejected" | "bad_response";

export type UpstreamRequest = {
  service: UpstreamService;
  url: string;
  method?: "GET" | "POST" | "PUT";
  headers?: Record<string, string>;
  json?: unknown;
  form?: FormData;
  timeoutMs: number;
  retries?: number;
  /**
   * True for an answer that refuses the request for good whatever its status (a signer's 502
   * naming the chain's refusal): a `rejected` error at once, never retried.
   */
  refused?: (status: number, text: string) => boolean;
};

/**
 * The one check of an outside service's JSON: `raw` parsed with the protocol's zod schema, or an
 * `UpstreamError` of kind `bad_response` (never retried, never written anywhere) naming the
 * first fields that did not match. Values are left out of the details: an answer may carry
 * secrets or personal data.
 *
 * @example
 * const user = parseUpstream("x", XUserAnswer, json, "users/me");
 */
export function parseUpstream<S extends z.ZodType>(
  service: UpstreamService,
  schema: S,
  raw: unknown,
  what: string,
  status?: number,
): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues
    .slice(0, UPSTREAM_LIMITS.issuesInDetails)
    .map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`)
    .join("; ");
  throw new UpstreamError(service, "bad_response", `${what} answer malformed`, {
    status,
    details,
    cause: parsed.error,
  });
}

/**
 * One HTTP call to an external service: a timeout per attempt, bounded retries with backoff
 * for transient failures, and a typed error for everything else. Returns the JSON checked
 * against `schema` (parseUpstream): a malformed answer is a `bad_response` error, never a value.
 *
 * @example
 * const w = await upstreamJson({ service: "steward", url, method: "POST", json: { agentId }, timeoutMs: 10_000, schema: Wallet });
 */
export async function upstreamJson<S extends z.ZodType>(
  r: UpstreamRequest & { schema: S },
): Promise<z.output<S>> {
  const retries = r.retries ?? UPSTREAM_LIMITS.retries;
  let last: UpstreamError | undefined;
  let retryAfterMs = 0;
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0)
      await sleep(Math.max(UPSTREAM_LIMITS.backoffMs * 2 ** (attempt - 1), retryAfterMs));
    retryAfterMs = 0;
    let res: Awaited<ReturnType<typeof fetch>>;
    try {
      res = await fetch(r.url, {
        method: r.method ?? (r.json || r.form ? "POST" : "GET"),
        headers: { ...(r.json ? { "content-type": "application/json" } : {}), ...r.headers },
        body: r.form ?? (r.json === undefined ? undefined : JSON.stringify(r.json)),
        signal: AbortSignal.timeout(r.timeoutMs),
      });
    } catch (error) {
      last = new UpstreamError(r.service, "unavailable", `${r.url} unreachable`, {
        details: (error as Error).message,
        cause: error,
      });
      continue;
    }
    let text: string;
    try {
      text = await res.text();
    } catch (error) {
      last = new UpstreamError(r.service, "unavailable", "response cut off", { cause: error });
      continue;
    }
    if (res.status >= 400 && r.refused?.(res.status, text)) {
      throw new UpstreamError(r.service, "rejected", `refused with ${res.status}`, {
        status: res.status,
        details: text.slice(0, 2000),
      });
    }
    if (res.status === 429 || res.status >= 500) {
      retryAfterMs = res.status === 429 ? retryAfter(res.headers.get("retry-after")) : 0;
      last = new UpstreamError(r.service, "unavailable", `answered ${res.status}`, {
        status: res.status,
        details: `${retryAfterMs ? `retry after ${retryAfterMs} ms: ` : ""}${text.slice(0, 300)}`,
      });
      // A window longer than a call may wait: the caller retries later, not this call now.
      if (retryAfterMs > UPSTREAM_LIMITS.maxRetryAfterMs) throw last;
      continue;
    }
    if (res.status >= 400) {
      throw new UpstreamError(r.service, "rejected", `refused with ${res.status}`, {
        status: res.status,
        details: text.slice(0, 2000), // a signer denial carries its reason
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new UpstreamError(r.service, "bad_response", "answered with non-JSON", {
        status: res.status,
        cause: error,
      });
    }
    return parseUpstream(r.service, r.schema, json, new URL(r.url).pathname, res.status);
  }
  throw last as UpstreamError;
}

/**
 * A `Retry-After` header in milliseconds from now (RFC 9110: delta-seconds or an HTTP date);
 * 0 when absent or unreadable.
 *
 * @example
 * retryAfter("3"); // 3000
 */
export function retryAfter(header: string | null, now = Date.now()): number {
  if (!header) return 0;
  const t = header.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const at = Date.parse(t);
  return Number.isNaN(at) ? 0 : Math.max(0, at - now);
}

export { FormData };
