import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/** A secret encrypted with AES-256-GCM: hex IV, authentication tag and ciphertext. */
export type Sealed = { iv: string; tag: string; ct: string };

/**
 * Encrypts `plain` under a 32-byte key. `context` (a row id) is bound as associated data, so
 * a sealed value copied onto another row fails to open.
 *
 * @example
 * const sealed = seal(key, secret, subscriptionId); // stored as JSON
 */
export function seal(key: Buffer, plain: string, context = ""): Sealed {
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", key, iv);
  if (context) c.setAAD(Buffer.from(context));
  const ct = Buffer.concat([c.update(plain, "utf8"), c.final()]);
  return { iv: iv.toString("hex"), tag: c.getAuthTag().toString("hex"), ct: ct.toString("hex") };
}

/** GCM's full tag, as `seal` writes it. */
const TAG_BYTES = 16;

/**
 * Decrypts a value from `seal`; a wrong key or context fails GCM's tag check (throws) instead
 * of returning garbage. The tag must be whole: without `authTagLength` Node takes a tag of 4 to
 * 16 bytes and checks only those, so a tag cut to 4 bytes would be a 2^32 guess to forge.
 *
 * @example
 * const secret = unseal(key, row.secret, row.subscription_id);
 */
export function unseal(key: Buffer, s: Sealed, context = ""): string {
  const d = createDecipheriv("aes-256-gcm", key, Buffer.from(s.iv, "hex"), {
    authTagLength: TAG_BYTES,
  });
  if (context) d.setAAD(Buffer.from(context));
  d.setAuthTag(Buffer.from(s.tag, "hex"));
  return Buffer.concat([d.update(Buffer.from(s.ct, "hex")), d.final()]).toString("utf8");
}

/**
 * A 32-byte key for one purpose, derived from the master key with HKDF-SHA256: one master
 * key to keep, and a leak of one purpose's key says nothing of another's.
 *
 * @example
 * const key = deriveKey(masterKey, "outbound-webhook-secrets");
 */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  if (master.length !== 32) throw new Error("master key must be 32 bytes");
  return Buffer.from(hkdfSync("sha256", master, Buffer.alloc(0), purpose, 32));
}
