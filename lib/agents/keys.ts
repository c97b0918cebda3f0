import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { Sql } from "../db/client.ts";
import { LaunchpadError } from "../errors.ts";

/** The one scope a launch key carries (api/AGENT.md). */
export const LAUNCH_SCOPE = "launch:*";
/** Writes the key's own agent's dashboard records; keys carry it by default (migration 007). */
export const AGENT_WRITE_SCOPE = "agent:write";
const KEY_PREFIX = "agk_";
/** Characters of the secret stored in clear to find the row; the rest is only hashed. */
const LOOKUP_CHARS = 8;

export type IssuedKey = { agentId: string; keyId: string; apiKey: string; expiresAt: Date | null };

function hashKey(apiKey: string): Buffer {
  // 256 bits of randomness: a plain sha256 is preimage-safe; no slow KDF is needed.
  return createHash("sha256").update(apiKey).digest();
}

function newKey(): { apiKey: string; prefix: string; hash: Buffer } {
  const apiKey = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  return {
    apiKey,
    prefix: apiKey.slice(0, KEY_PREFIX.length + LOOKUP_CHARS),
    hash: hashKey(apiKey),
  };
}

export type CreateAgentParameters = { name: string; expiresAt?: Date };

/**
 * Registers an agent and issues its first API key. The key is returned once and stored only
 * as a hash.
 *
 * @example
 * const { agentId, apiKey } = await createAgent(sql, { name: "Ava" });
 */
export async function createAgent(sql: Sql, p: CreateAgentParameters): Promise<IssuedKey> {
  const agentId = randomUUID();
  return sql.begin(async (tx) => {
    await tx`insert into app.agents (agent_id, name) values (${agentId}, ${p.name})`;
    return insertKey(tx as unknown as Sql, agentId, p.expiresAt);
  });
}

async function insertKey(sql: Sql, agentId: string, expiresAt?: Date): Promise<IssuedKey> {
  const k = newKey();
  const keyId = randomUUID();
  await sql`insert into app.agent_keys (key_id, agent_id, prefix, key_hash, expires_at)
    values (${keyId}, ${agentId}, ${k.prefix}, ${k.hash}, ${expiresAt ?? null})`;
  return { agentId, keyId, apiKey: k.apiKey, expiresAt: expiresAt ?? null };
}

/** Thrown when an operator names an agent that does not exist. */
export class UnknownAgentError extends LaunchpadError<"UNKNOWN_AGENT"> {
  override name = "UnknownAgentError";
  constructor(message: string) {
    super("UNKNOWN_AGENT", { message });
  }
}

/**
 * Issues a new key for the agent and revokes every older one in the same transaction: the old
 * key stops working the moment the new one exists.
 *
 * @example
 * const { apiKey } = await rotateKey(sql, { agentId });
 */
export async function rotateKey(
  sql: Sql,
  p: { agentId: string; expiresAt?: Date },
): Promise<IssuedKey> {
  return sql.begin(async (tx) => {
    const [agent] =
      await tx`select agent_id from app.agents where agent_id = ${p.agentId} for update`;
    if (!agent) throw new UnknownAgentError(`no agent ${p.agentId}`);
    await tx`update app.agent_keys set revoked_at = now()
      where agent_id = ${p.agentId} and revoked_at is null`;
    return insertKey(tx as unknown as Sql, p.agentId, p.expiresAt);
  });
}

/** Revokes every live key of the agent; returns how many were revoked. */
export async function revokeKeys(sql: Sql, p: { agentId: string }): Promise<number> {
  const [agent] = await sql`select agent_id from app.agents where agent_id = ${p.agentId}`;
  if (!agent) throw new UnknownAgentError(`no agent ${p.agentId}`);
  const rows = await sql`update app.agent_keys set revoked_at = now()
    where agent_id = ${p.agentId} and revoked_at is null returning key_id`;
  return rows.length;
}

export type VerifiedKey = { agentId: string; keyId: string; scopes: string[] };

/**
 * The live key matching `apiKey`, or undefined for an unknown, revoked or expired one. The
 * row is found by its public prefix; the hash is compared in constant time.
 *
 * @example
 * const key = await verifyKey(sql, req.header("x-agent-api-key"));
 */
export async function verifyKey(sql: Sql, apiKey: string): Promise<VerifiedKey | undefined> {
  if (!apiKey.startsWith(KEY_PREFIX) || apiKey.length > 128) return undefined;
  const hash = hashKey(apiKey);
  const rows = await sql<
    { key_id: string; agent_id: string; key_hash: Buffer; scopes: string[]; live: boolean }[]
  >`select key_id, agent_id, key_hash, scopes,
      (revoked_at is null and (expires_at is null or expires_at > now())) as live
    from app.agent_keys where prefix = ${apiKey.slice(0, KEY_PREFIX.length + LOOKUP_CHARS)}`;
  for (const r of rows) {
    if (r.key_hash.length === hash.length && timingSafeEqual(r.key_hash, hash) && r.live) {
      return { agentId: r.agent_id, keyId: r.key_id, scopes: r.scopes };
    }
  }
  return undefined;
}
