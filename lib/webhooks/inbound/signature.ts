import { createHmac, timingSafeEqual } from "node:crypto";

import { WEBHOOK_LIMITS } from "../../limits.ts";

const WEBHOOK_TOLERANCE_MS = WEBHOOK_LIMITS.toleranceMs;

/**
 * `X-Webhook-Signature` for a body: `t=<unix ms>,v1=<hex HMAC-SHA256 of "t.body">`, one `v1`
 * per secret (a sender rotating its secret signs with the old and the new one).
 *
 * @example
 * signWebhookBody({ secrets: [secret], body }); // "t=1767225600000,v1=5f…"
 */
export function signWebhookBody(p: { secrets: readonly string[]; body: string; t?: number }) {
  const t = p.t ?? Date.now();
  const v1 = p.secrets.map(
    (s) => `v1=${createHmac("sha256", s).update(`${t}.${p.body}`).digest("hex")}`,
  );
  return `t=${t},${v1.join(",")}`;
}

export type WebhookVerdict =
  | { ok: true }
  | { ok: false; reason: "missing" | "malformed" | "stale" | "mismatch"; message: string };

/**
 * Checks a signature header against our secret for the source, in constant time per candidate.
 * Any one matching `v1` accepts (rotation); the timestamp must be within 5 minutes.
 *
 * @example
 * verifyWebhookSignature({ secret, body: raw, header: c.req.header("x-webhook-signature") });
 */
export function verifyWebhookSignature(p: {
  secret: string;
  body: string;
  header: string | undefined;
  now?: number;
}): WebhookVerdict {
  if (!p.header) return { ok: false, reason: "missing", message: "X-Webhook-Signature is missing" };
  let t: number | undefined;
  const candidates: Buffer[] = [];
  for (const part of p.header.split(",")) {
    const m = /^\s*(t|v1)=([0-9a-f]+)\s*$/.exec(part);
    if (!m) continue; // unknown schemes (v0=, v2=) are skipped, as Standard Webhooks does
    if (m[1] === "t") {
      if (t !== undefined || !/^\d{1,16}$/.test(m[2] as string)) return malformed;
      t = Number(m[2]);
    } else {
      if (!/^[0-9a-f]{64}$/.test(m[2] as string)) return malformed;
      candidates.push(Buffer.from(m[2] as string, "hex"));
    }
  }
  if (
    t === undefined ||
    candidates.length === 0 ||
    candidates.length > WEBHOOK_LIMITS.maxSignatures
  ) {
    return malformed;
  }
  const skew = (p.now ?? Date.now()) - t;
  if (Math.abs(skew) > WEBHOOK_TOLERANCE_MS) {
    return {
      ok: false,
      reason: "stale",
      message: `signature timestamp is ${Math.round(skew / 1000)} s from our clock (tolerance ${WEBHOOK_TOLERANCE_MS / 1000} s); t is unix milliseconds`,
    };
  }
  const want = createHmac("sha256", p.secret).update(`${t}.${p.body}`).digest();
  let match = false;
  // Compare every candidate (no early exit) so timing says nothing about which one matched.
  for (const c of candidates) match = timingSafeEqual(want, c) || match;
  return match
    ? { ok: true }
    : { ok: false, reason: "mismatch", message: "no v1 signature matches the body and secret" };
}

const malformed: WebhookVerdict = {
  ok: false,
  reason: "malformed",
  message: "X-Webhook-Signature must be t=<unix ms>,v1=<64 hex> (one or more v1)",
};
