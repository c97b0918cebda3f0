import { randomBytes } from "node:crypto";
import { ParsedMessage } from "@signinwithethereum/siwe-parser";
import type { Address, Hex, PublicClient } from "viem";
import type { Sql } from "../../lib/db/client.ts";
import { HttpError } from "../errors.ts";
import { SESSION_LIMITS } from "../limits.ts";

/** Who may ask for a signature: the web app's and the API's own origins. */
export type SiweExpectations = { origins: string[]; chainId: number };

/** A SIWE message that parsed and passed every field check, not yet the signature. */
export type CheckedSiwe = { address: Address; nonce: string; text: string };

const refuse = (message: string, cause?: unknown) =>
  new HttpError("not_authenticated", { message, cause });

/**
 * Issues a single-use nonce bound to `address`, stored in Postgres so any API process
 * accepts it. 128 random bits as hex: EIP-4361 wants at least 8 alphanumerics.
 *
 * @example
 * const { nonce, expiresAt } = await issueNonce(sql, "0xabc…");
 */
export async function issueNonce(sql: Sql, address: Address) {
  const nonce = randomBytes(16).toString("hex");
  const [row] = await sql<{ expires_at: Date }[]>`
    insert into app.siwe_nonces (nonce, address, expires_at)
    values (${nonce}, ${address.toLowerCase()}, now() + make_interval(secs => ${SESSION_LIMITS.nonceTtlSeconds}))
    returning expires_at`;
  // Expired nonces are useless; dropping a few on every issue keeps the table small.
  await sql`delete from app.siwe_nonces where nonce in (
    select nonce from app.siwe_nonces where expires_at < now() limit 100)`;
  return { nonce, expiresAt: (row as { expires_at: Date }).expires_at };
}

/**
 * Parses an EIP-4361 message with the SIWE project's own ABNF parser and checks every field
 * the relying party owns: domain and URI (one of our origins), version 1, chain id, issued
 * time (not in the future, not older than a nonce lives), expiry and not-before. Any
 * failure is 401 `not_authenticated` naming the field.
 *
 * @example
 * const checked = checkSiweMessage(text, { origins: ["https://app.example"], chainId: 56 });
 */
export function checkSiweMessage(text: string, x: SiweExpectations, now = new Date()): CheckedSiwe {
  let m: ParsedMessage;
  try {
    m = new ParsedMessage(text);
  } catch (error) {
    const errors = (error as { errors?: string[] }).errors;
    throw refuse(
      `the message is not an EIP-4361 message: ${errors?.join("; ") ?? (error as Error).message}`,
      error,
    );
  }
  const origins = x.origins.map((o) => new URL(o));
  const domainOk = origins.find((o) => o.host === m.domain);
  if (!domainOk) {
    throw refuse(
      `domain ${m.domain} is not ours (expected ${origins.map((o) => o.host).join(" or ")})`,
    );
  }
  if (m.scheme && `${m.scheme}:` !== domainOk.protocol) {
    throw refuse(`scheme ${m.scheme} does not match ${domainOk.protocol.replace(":", "")}`);
  }
  let uri: URL;
  try {
    uri = new URL(m.uri);
  } catch {
    throw refuse(`URI ${m.uri} is not a URL`);
  }
  if (!origins.some((o) => o.origin === uri.origin)) {
    throw refuse(`URI ${m.uri} is not on one of our origins`);
  }
  if (m.version !== "1") throw refuse(`version ${m.version} is not 1`);
  if (m.chainId !== x.chainId) throw refuse(`chain id ${m.chainId} is not ${x.chainId}`);
  const t = now.getTime();
  const skew = SESSION_LIMITS.clockSkewSeconds * 1000;
  const issued = Date.parse(m.issuedAt);
  if (issued > t + skew) throw refuse("Issued At is in the future");
  if (issued < t - SESSION_LIMITS.nonceTtlSeconds * 1000 - skew) {
    throw refuse("Issued At is older than a nonce lives; ask for a new nonce");
  }
  if (m.expirationTime && Date.parse(m.expirationTime) <= t) {
    throw refuse("the message has expired (Expiration Time)");
  }
  if (m.notBefore && Date.parse(m.notBefore) > t + skew) {
    throw refuse("the message is not valid yet (Not Before)");
  }
  return { address: m.address.toLowerCase() as Address, nonce: m.nonce, text };
}

/**
 * Verifies the signature over the message text for the message's address: an EOA by
 * recovery first (no RPC), then EIP-1271 contract wallets (a Safe) and EIP-6492
 * counterfactual wallets through viem's universal validator (one `eth_call`).
 * An RPC failure is 503 `unavailable`; a bad signature 401 `not_authenticated`.
 */
export async function verifySiweSignature(client: PublicClient, m: CheckedSiwe, signature: Hex) {
  let valid: boolean;
  try {
    valid = await client.verifyMessage({
      address: m.address,
      message: m.text,
      signature,
      mode: "eoa",
    });
  } catch (error) {
    throw new HttpError("unavailable", {
      message: "could not reach the chain to verify a contract-wallet signature; retry",
      cause: error,
    });
  }
  if (!valid) throw refuse("the signature does not match the message's address");
}

/**
 * Consumes the message's nonce: exists, unexpired, bound to the same address. Runs inside
 * the transaction that creates the session, so a replay (or a race of two) gets nothing.
 */
export async function consumeNonce(sql: Sql, m: CheckedSiwe) {
  const [row] = await sql<{ address: string; live: boolean }[]>`
    delete from app.siwe_nonces where nonce = ${m.nonce}
    returning address, expires_at > now() as live`;
  if (!row) throw refuse("unknown or already used nonce; ask GET /auth/nonce for a new one");
  if (!row.live) throw refuse("the nonce has expired; ask GET /auth/nonce for a new one");
  if (row.address !== m.address) throw refuse("the nonce was issued for another address");
}

/** Read-only look at the nonce before the (costlier) signature check, for a clear error. */
export async function peekNonce(sql: Sql, m: CheckedSiwe) {
  const [row] = await sql<{ address: string; live: boolean }[]>`
    select address, expires_at > now() as live from app.siwe_nonces where nonce = ${m.nonce}`;
  if (!row) throw refuse("unknown or already used nonce; ask GET /auth/nonce for a new one");
  if (!row.live) throw refuse("the nonce has expired; ask GET /auth/nonce for a new one");
  if (row.address !== m.address) throw refuse("the nonce was issued for another address");
}
