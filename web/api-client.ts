import { WEB_LIMITS } from "./limits.ts";

// The web role's only way to data: the API's public REST interface, like any other client.

/** What a page learns from one API call. */
export type ApiAnswer<T> =
  | { kind: "ok"; data: T }
  | { kind: "not_found" }
  /** 503: the index is not published or not caught up yet. */
  | { kind: "catching_up"; retryAfter: number }
  /** 429: this server's budget at the API is spent for the window. */
  | { kind: "rate_limited"; retryAfter: number }
  /** Anything else (API down, 5xx, timeout): the page says the API is unreachable. */
  | { kind: "failed"; reason: string };

/** Thrown by `must()` so a page handler can render the state page for it. */
export class ApiStateError extends Error {
  readonly answer: Exclude<ApiAnswer<unknown>, { kind: "ok" }>;
  constructor(answer: Exclude<ApiAnswer<unknown>, { kind: "ok" }>) {
    super(answer.kind);
    this.answer = answer;
  }
}

/**
 * A client of the API at `baseUrl`. Every page is public data; `serviceKey` (sent as
 * `X-Service-Key`, never to a browser) only gives these reads the web role's own rate-limit
 * budget instead of this server's address's. Answers are kept for `WEB_LIMITS.apiCacheMs` and
 * identical calls in flight share one request: a page viewed by many people at once costs the
 * API one call per path, not one per viewer.
 */
export function apiClient(baseUrl: string, serviceKey?: string) {
  const headers: Record<string, string> = { accept: "application/json" };
  if (serviceKey) headers["x-service-key"] = serviceKey;
  const base = baseUrl.replace(/\/$/, "");
  const recent = new Map<string, { at: number; answer: Promise<ApiAnswer<unknown>> }>();
  return function get<T>(path: string): Promise<ApiAnswer<T>> {
    const now = Date.now();
    const hit = recent.get(path);
    if (hit && now - hit.at < WEB_LIMITS.apiCacheMs) return hit.answer as Promise<ApiAnswer<T>>;
    if (recent.size >= WEB_LIMITS.apiCacheEntries) recent.clear();
    const answer = call<T>(base, path, headers);
    recent.set(path, { at: now, answer });
    // Only data is worth keeping; a failure is retried by the next viewer.
    answer.then((a) => {
      if (a.kind !== "ok" && a.kind !== "not_found") recent.delete(path);
    });
    return answer;
  };
}

async function call<T>(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<ApiAnswer<T>> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      signal: AbortSignal.timeout(WEB_LIMITS.apiTimeoutMs),
      headers,
    });
  } catch (error) {
    return { kind: "failed", reason: error instanceof Error ? error.message : String(error) };
  }
  if (res.status === 404) {
    await res.body?.cancel();
    return { kind: "not_found" };
  }
  if (res.status === 503) {
    await res.body?.cancel();
    const retry = Number(res.headers.get("retry-after"));
    return {
      kind: "catching_up",
      retryAfter: retry > 0 ? retry : WEB_LIMITS.catchingUpRetrySeconds,
    };
  }
  if (res.status === 429) {
    await res.body?.cancel();
    const retry = Number(res.headers.get("retry-after"));
    return { kind: "rate_limited", retryAfter: retry > 0 ? retry : 60 };
  }
  if (!res.ok) {
    await res.body?.cancel();
    return { kind: "failed", reason: `API answered ${res.status} for ${path}` };
  }
  try {
    const body = (await res.json()) as { ok: boolean; data: T };
    return { kind: "ok", data: body.data };
  } catch (error) {
    return { kind: "failed", reason: `unreadable answer for ${path}: ${String(error)}` };
  }
}

export type Get = ReturnType<typeof apiClient>;

/** The data, or an ApiStateError (404, 503, failure) for the page handler to render. */
export function must<T>(a: ApiAnswer<T>): T {
  if (a.kind === "ok") return a.data;
  throw new ApiStateError(a);
}

/** The data, or null when the API has none (404); other states still throw. */
export function orNull<T>(a: ApiAnswer<T>): T | null {
  if (a.kind === "not_found") return null;
  return must(a);
}

/** The data or null whatever went wrong: for a page section that may be missing. */
export function optional<T>(a: ApiAnswer<T>): T | null {
  return a.kind === "ok" ? a.data : null;
}
