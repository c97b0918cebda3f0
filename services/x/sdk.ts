import { Agent } from "node:http";
import {
  ApiPartialResponseError,
  ApiRequestError,
  ApiResponseError,
  type ITwitterApiClientPlugin,
  TwitterApi,
} from "twitter-api-v2";
import { UpstreamError } from "../http.ts";

/** Where twitter-api-v2 sends every call (its hosts are fixed in the SDK). */
const SDK_API = "https://api.x.com/";
const SDK_WEB = "https://x.com/";

/**
 * A twitter-api-v2 plugin that sends the SDK's calls to `apiUrl` (the SDK's own hosts are
 * written into it; its plugins may rewrite a request before it goes) and bounds each call
 * with `timeoutMs` (the SDK's per-request socket timeout).
 */
export function routeTo(apiUrl: string, timeoutMs: number): ITwitterApiClientPlugin {
  const base = `${apiUrl.replace(/\/$/, "")}/`;
  return {
    onBeforeRequestConfig: ({ params }) => {
      if (base !== SDK_API && params.url.startsWith(SDK_API)) {
        params.url = base + params.url.slice(SDK_API.length);
      }
      params.timeout ??= timeoutMs;
    },
  };
}

/**
 * A twitter-api-v2 client for `token` (an app bearer or a user's access token) talking to
 * `apiUrl` (https://api.x.com or the stand-in).
 *
 * @example
 * const x = xSdk("token", "http://127.0.0.1:3013", 10_000);
 * const me = await x.v2.me();
 */
export function xSdk(token: string, apiUrl: string, timeoutMs: number): TwitterApi {
  return new TwitterApi(token, {
    plugins: [routeTo(apiUrl, timeoutMs)],
    // The SDK calls node:https; Node lets it speak plain http (a local stand-in) when the
    // agent is an http one.
    ...(apiUrl.startsWith("http:") ? { httpAgent: new Agent() } : {}),
  });
}

/** The SDK's authorize link (always on x.com) moved to the configured web host. */
export function authorizeUrlAt(sdkUrl: string, oauthUrl: string): string {
  return sdkUrl.startsWith(SDK_WEB)
    ? `${oauthUrl.replace(/\/$/, "")}/${sdkUrl.slice(SDK_WEB.length)}`
    : sdkUrl;
}

/**
 * An SDK failure as the UpstreamError callers act on: `unavailable` when unreachable, timed
 * out or 5xx; `rejected` on a 4xx (401: the token is missing or expired). 429 is the
 * caller's (see XRateLimited).
 */
export function xUpstreamError(what: string, error: unknown): UpstreamError {
  if (error instanceof ApiResponseError) {
    const status = error.code;
    return new UpstreamError(
      "x",
      status >= 500 ? "unavailable" : "rejected",
      `${what} answered ${status}`,
      {
        status,
        details: JSON.stringify(error.data ?? {}).slice(0, 300),
      },
    );
  }
  if (error instanceof ApiRequestError) {
    return new UpstreamError("x", "unavailable", `${what} unreachable`, {
      details: error.requestError?.message,
      cause: error,
    });
  }
  if (error instanceof ApiPartialResponseError) {
    return new UpstreamError("x", "bad_response", `${what} answer cut off or not JSON`, {
      cause: error,
    });
  }
  throw error;
}

export { ApiResponseError };
