import { createHash, randomBytes } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Address } from "viem";
import type { Sql } from "../../../lib/db/client.ts";
import { SESSION_LIMITS } from "../../limits.ts";
import type { Session } from "../../session.ts";

/** 256 random bits: a plain sha256 is preimage-safe, and a lookup by hash is constant-time enough. */
const hashId = (id: string) => createHash("sha256").update(id).digest();

/**
 * Creates a session row and returns the opaque id for the cookie (stored only as its hash).
 *
 * @example
 * const { id, expiresAt } = await createSession(tx, { kind: "siwe", address });
 */
export async function createSession(
  sql: Sql,
  p: { kind: "siwe"; address: Address } | { kind: "patron"; patronId: string },
) {
  const id = randomBytes(32).toString("base64url");
  const [row] = await sql<{ expires_at: Date }[]>`
    insert into app.sessions (id_hash, kind, address, patron_id, expires_at)
    values (${hashId(id)}, ${p.kind}, ${p.kind === "siwe" ? p.address.toLowerCase() : null},
      ${p.kind === "patron" ? p.patronId : null},
      now() + make_interval(secs => ${SESSION_LIMITS.sessionTtlSeconds}))
    returning expires_at`;
  // An expired session never signs anyone in again: dropping a few at each sign-in keeps the
  // table to about the live ones (a row per sign-in otherwise stayed for good), as the SIWE
  // nonces do (api/sessions/siwe.ts).
  await sql`delete from app.sessions where id_hash in (
    select id_hash from app.sessions where expires_at < now() limit ${SESSION_LIMITS.expiredDropBatch})`;
  return { id, expiresAt: (row as { expires_at: Date }).expires_at };
}

/** The live session of an opaque id of the given kind: unexpired and not revoked. */
export async function findSession(
  sql: Sql,
  kind: Session["kind"],
  id: string | undefined,
): Promise<Session | undefined> {
  if (!id || id.length > 100) return undefined;
  const idHash = hashId(id);
  const [r] = await sql<
    { address: string | null; patron_id: string | null; expires_at: Date }[]
  >`select address, patron_id, expires_at from app.sessions
    where id_hash = ${idHash} and kind = ${kind} and revoked_at is null and expires_at > now()`;
  if (!r) return undefined;
  return kind === "siwe"
    ? { kind, idHash, address: r.address as Address, expiresAt: r.expires_at }
    : { kind, idHash, patronId: r.patron_id as string, expiresAt: r.expires_at };
}

/** Ends a session (idempotent). */
export async function revokeSession(sql: Sql, idHash: Buffer) {
  await sql`update app.sessions set revoked_at = now() where id_hash = ${idHash} and revoked_at is null`;
}

/** Cookie attributes: HttpOnly, SameSite=Lax, Secure in production, host-only, path /. */
export type CookiePolicy = { secure: boolean };

/** Sets a session cookie that expires with the session. */
export function setSessionCookie(
  c: Context,
  name: string,
  value: string,
  expiresAt: Date,
  policy: CookiePolicy,
) {
  setCookie(c, name, value, {
    httpOnly: true,
    sameSite: "Lax",
    secure: policy.secure,
    path: "/",
    expires: expiresAt,
    maxAge: Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000)),
  });
}

/** Clears a cookie with the same attributes it was set with. */
export function clearCookie(c: Context, name: string, policy: CookiePolicy) {
  deleteCookie(c, name, { path: "/", secure: policy.secure, httpOnly: true, sameSite: "Lax" });
}

/** The raw value of a cookie, if sent. */
export const cookieValue = (c: Context, name: string) => getCookie(c, name);

/**
 * Signs out: revokes the live session of `kind` named by the request's cookie `name` and clears
 * the cookie. False (and nothing cleared) when the request carries no live session.
 *
 * @example
 * if (!(await endSession(c, sql, "siwe", COOKIES.siwe, cookie))) throw notSignedIn;
 */
export async function endSession(
  c: Context,
  sql: Sql,
  kind: Session["kind"],
  name: string,
  policy: CookiePolicy,
): Promise<boolean> {
  const s = await findSession(sql, kind, cookieValue(c, name));
  if (!s) return false;
  await revokeSession(sql, s.idHash);
  clearCookie(c, name, policy);
  return true;
}
