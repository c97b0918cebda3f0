import { Agent, request } from "undici";
import { publicHostProblem, publicOnlyLookup } from "../../../lib/http/public-address.ts";
import { OUTBOUND_LIMITS } from "../../../lib/limits.ts";

/**
 * Connections to receivers: every address comes from `publicOnlyLookup`, so the socket goes
 * to the IP that was checked at this delivery (never a rebound private one). Trusted local
 * origins (test receivers, local mode only) use a plain agent.
 */
const pinnedAgent = new Agent({
  connect: { timeout: OUTBOUND_LIMITS.connectTimeoutMs, lookup: publicOnlyLookup },
});
const plainAgent = new Agent({ connect: { timeout: OUTBOUND_LIMITS.connectTimeoutMs } });

export type SendParameters = {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Origins exempt from the https and public-address rules (local mode only). */
  trustedOrigins: readonly string[];
};

export type SendResult = {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** Seconds from a 429/503 `retry-after`, when the receiver asked for a pause. */
  retryAfterSeconds: number | null;
};

/**
 * POSTs one delivery attempt. Success is a 2xx within `timeoutMs` (connect, headers and the
 * whole answer); redirects are not followed (a 3xx is a failure); the host must be https and
 * resolve to a public address now, not only when the subscription was made.
 */
export async function sendWebhook(p: SendParameters): Promise<SendResult> {
  const started = performance.now();
  const done = (r: Omit<SendResult, "latencyMs">): SendResult => ({
    ...r,
    latencyMs: Math.round(performance.now() - started),
  });
  const url = new URL(p.url);
  const trusted = p.trustedOrigins.includes(url.origin);
  if (!trusted) {
    const problem =
      url.protocol !== "https:" ? "the URL is not https" : await publicHostProblem(url);
    if (problem)
      return done({ ok: false, statusCode: null, error: problem, retryAfterSeconds: null });
  }
  try {
    const res = await request(url, {
      method: "POST",
      dispatcher: trusted ? plainAgent : pinnedAgent,
      headers: {
        "content-type": "application/json",
        "user-agent": "launchpad-webhooks/1",
        ...p.headers,
      },
      body: p.body,
      headersTimeout: p.timeoutMs,
      bodyTimeout: p.timeoutMs,
      signal: AbortSignal.timeout(p.timeoutMs),
    });
    // The answer is not used: read a little (so the connection can be reused) and drop it.
    await res.body.dump({ limit: OUTBOUND_LIMITS.responseSnippetBytes }).catch(() => {});
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    const retryAfter = Number(res.headers["retry-after"]);
    return done({
      ok,
      statusCode: res.statusCode,
      error: ok ? null : `the receiver answered ${res.statusCode}`,
      retryAfterSeconds:
        !ok && Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 86_400) : null,
    });
  } catch (error) {
    const e = error as { name?: string; code?: string; cause?: { code?: string }; message: string };
    const code = e.code ?? e.cause?.code;
    const message =
      code === "EPRIVATE"
        ? "the host resolves to a private, loopback or link-local address"
        : e.name === "TimeoutError" || code?.includes("TIMEOUT")
          ? `no answer within ${p.timeoutMs} ms`
          : `connection failed (${code ?? e.message})`;
    return done({ ok: false, statusCode: null, error: message, retryAfterSeconds: null });
  }
}
