import type { Sql } from "../db/client.ts";
import { INITIAL_RULES, type PolicyActor, type PolicyRules, type PolicyVersion } from "./model.ts";

/** One trade the service let through: what the budget and the spot positions are counted from. */
export type LedgerEntry = {
  at: string;
  venue: string;
  asset: string;
  side: "long" | "short";
  action: "open" | "close";
  /** USD decimal string. */
  notionalUsd: string;
  policyId: string;
  version: number;
  ref: string;
};

type VersionRow = {
  policy_id: string;
  version: number;
  rules: PolicyRules;
  created_at: Date;
  created_by: PolicyActor;
};
const toVersion = (r: VersionRow): PolicyVersion => ({
  policyId: r.policy_id,
  version: r.version,
  rules: r.rules,
  createdAt: r.created_at.toISOString(),
  createdBy: r.created_by,
});

/** The first version of every wallet: closed (nothing tradable), written once on first read. */
async function ensureInitial(sql: Sql, walletId: string): Promise<void> {
  await sql`insert into app.policy_versions (policy_id, wallet_id, version, rules, created_by)
    values (${`${walletId}:1`}, ${walletId}, 1, ${sql.json(INITIAL_RULES as never)},
      ${sql.json({ kind: "signer", id: "initial" })})
    on conflict do nothing`;
}

/** The active version (the newest) of a wallet's policy. */
export async function activePolicy(sql: Sql, walletId: string): Promise<PolicyVersion> {
  await ensureInitial(sql, walletId);
  const [row] = await sql<VersionRow[]>`select policy_id, version, rules, created_at, created_by
    from app.policy_versions where wallet_id = ${walletId} order by version desc limit 1`;
  return toVersion(row as VersionRow);
}

/** Every version, newest first. */
export async function policyVersions(sql: Sql, walletId: string): Promise<PolicyVersion[]> {
  await ensureInitial(sql, walletId);
  const rows = await sql<VersionRow[]>`select policy_id, version, rules, created_at, created_by
    from app.policy_versions where wallet_id = ${walletId} order by version desc`;
  return rows.map(toVersion);
}

export type SavePolicyParameters = {
  walletId: string;
  rules: PolicyRules;
  actor: PolicyActor;
  /** Runs inside the transaction before it commits (the signer's copy): a throw saves nothing. */
  beforeCommit?: (v: PolicyVersion) => Promise<void>;
};

/**
 * Appends a version that becomes the active one. Saves of one wallet are serialized by an
 * advisory lock, so two saves never get the same version number.
 */
export async function savePolicy(sql: Sql, p: SavePolicyParameters): Promise<PolicyVersion> {
  await ensureInitial(sql, p.walletId);
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${`policy:${p.walletId}`}, 0))`;
    const [last] = await tx<{ version: number }[]>`select max(version)::int as version
      from app.policy_versions where wallet_id = ${p.walletId}`;
    const [row] = await tx<VersionRow[]>`insert into app.policy_versions
      (policy_id, wallet_id, version, rules, created_by)
      values (gen_random_uuid()::text, ${p.walletId}, ${(last?.version ?? 0) + 1},
        ${tx.json(p.rules as never)}, ${tx.json(p.actor)})
      returning policy_id, version, rules, created_at, created_by`;
    const saved = toVersion(row as VersionRow);
    await p.beforeCommit?.(saved);
    return saved;
  }) as Promise<PolicyVersion>;
}

/** The wallet's ledger since a moment (all of it without one), oldest first. */
export async function ledger(sql: Sql, walletId: string): Promise<LedgerEntry[]> {
  const rows = await sql<
    (Omit<LedgerEntry, "at" | "notionalUsd"> & { at: Date; notionalUsd: string })[]
  >`select at, venue, asset, side, action, notional_usd::text as "notionalUsd",
      policy_id as "policyId", version, ref
    from app.policy_ledger where wallet_id = ${walletId} order by id`;
  return rows.map((r) => ({ ...r, at: r.at.toISOString() }));
}

/** Records what the service let through: a ledger entry and/or the leverage an order set. */
export async function recordTrade(
  sql: Sql,
  walletId: string,
  r: { entry?: LedgerEntry; leverage?: [string, number] },
): Promise<void> {
  const e = r.entry;
  if (e) {
    await sql`insert into app.policy_ledger
      (wallet_id, at, venue, asset, side, action, notional_usd, policy_id, version, ref)
      values (${walletId}, ${e.at}, ${e.venue}, ${e.asset}, ${e.side}, ${e.action},
        ${e.notionalUsd}, ${e.policyId}, ${e.version}, ${e.ref})`;
  }
  if (r.leverage) {
    await sql`insert into app.policy_leverage (wallet_id, coin, leverage)
      values (${walletId}, ${r.leverage[0]}, ${r.leverage[1]})
      on conflict (wallet_id, coin) do update set leverage = excluded.leverage, updated_at = now()`;
  }
}

/** The leverage the service last let an order set, per coin. */
export async function leverages(sql: Sql, walletId: string): Promise<Record<string, number>> {
  const rows = await sql<{ coin: string; leverage: number }[]>`select coin, leverage
    from app.policy_leverage where wallet_id = ${walletId}`;
  return Object.fromEntries(rows.map((r) => [r.coin, r.leverage]));
}
