import { createHmac, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";
/** Standard Webhooks allows 24-64 random bytes; 32 matches the HMAC-SHA256 block use. */
const SECRET_BYTES = 32;

/**
 * A new signing secret, Standard Webhooks style: `whsec_` + base64 of 32 random bytes.
 *
 * @example
 * newSigningSecret(); // "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
 */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;
}

/**
 * The `webhook-signature` header: one `v1,<base64 HMAC-SHA256>` entry per live secret over
 * `${id}.${timestamp}.${body}`, space-separated, so receivers accept during a rotation.
 */
export function signatureHeader(p: {
  secrets: readonly string[];
  id: string;
  timestamp: number;
  body: string;
}): string {
  const content = `${p.id}.${p.timestamp}.${p.body}`;
  return p.secrets
    .map((s) => {
      const key = Buffer.from(
        s.startsWith(SECRET_PREFIX) ? s.slice(SECRET_PREFIX.length) : s,
        "base64",
      );
      return `v1,${createHmac("sha256", key).update(content).digest("base64")}`;
    })
    .join(" ");
}
