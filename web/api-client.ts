import { WEB_LIMITS } from "./limits.ts";

// The web role's only way to data: the API's public REST interface, like any other client.

/** What a page learns from one API call. */
export type ApiAnswer<T> =
  | { kind: "ok"; data: T }
  | { kind: "not_found" }
  /** 503: the index is not published or not caught up yet. */
  | { kind: "catching_up"; retryAfter: number }
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

/** A client of the API at `baseUrl` (no credentials: every page is public data). */
export function apiClient(baseUrl: string) {
  const base = baseUrl.replace(/\/$/, "");
  return async function get<T>(path: string): Promise<ApiAnswer<T>> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        signal: AbortSignal.timeout(WEB_LIMITS.apiTimeoutMs),
        headers: { accept: "application/json" },
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
    if (!res.ok) {
      await res.body?.cancel();
      return { kind: "failed", reason: `API answered ${res.status} for ${path}` };
    }
    const body = (await res.json()) as { ok: boolean; data: T };
    return { kind: "ok", data: body.data };
  };
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
