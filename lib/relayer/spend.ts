// The relayer's budget for callers with no funds of their own: a ledger in Postgres
// (app.relayer_spend, one row per transaction the relayer signs for them), so every API process
// counts against the same figures. A transaction is reserved at its estimate before it is
// signed, counted at its maximum once signed and at its real cost once mined; one that sent
// nothing counts nothing.
import { parseTransaction, type TransactionReceipt } from "viem";
import type { Sql } from "../db/client.ts";
import { RELAYER_SPEND_LIMITS } from "../limits.ts";
import type { StoredTx } from "./nonce.ts";

/** What the relayer may pay for callers with no funds of their own. */
export type RelayerBudget = {
  /** Transactions one client (an IPv4 address, an IPv6 /64) may have it pay per sliding hour. */
  perClientPerHour: number;
  /** Wei it may spend per UTC day, all clients together. */
  perDayWei: bigint;
};

export type RelayerBudgetParameters = {
  /** The caller's bucket (`clientBucket` of its address). */
  client: string;
  /** The most the transaction about to be signed can cost; 0 asks whether anything fits. */
  maxWei: bigint;
  budget: RelayerBudget;
};

/** Within the budget, or over it: whose (`client`, `day`) and for how long. */
export type RelayerBudgetVerdict =
  | { ok: true; spentTodayWei: bigint }
  | { ok: false; over: "client" | "day"; retryAfterSeconds: number; spentTodayWei: bigint };

const W = RELAYER_SPEND_LIMITS;

/** A row that was, or may still be, sent: a reservation left unsigned past a minute was not. */
const counts = (sql: Sql) =>
  sql`(status in ('sent', 'mined') or (status = 'reserved'
    and created_at > now() - make_interval(secs => ${W.unsentAfterSeconds})))`;
/** What a row counts for: its cost once mined, its maximum until then. */
const cost = (sql: Sql) =>
  sql`(case when status = 'mined' then spent_wei when ${counts(sql)} then max_wei else 0 end)`;
const today = (sql: Sql) => sql`date_trunc('day', now(), 'UTC')`;

/**
 * Whether a transaction costing at most `maxWei` fits the caller's hour and the day's budget
 * now. Read only: `reserveRelayerSpend` asks again under the lock before it counts one.
 *
 * @example
 * const v = await relayerBudgetVerdict(sql, { client: "203.0.113.7", maxWei: 0n, budget });
 * if (!v.ok) throw tooMany(v.retryAfterSeconds);
 */
export async function relayerBudgetVerdict(
  sql: Sql,
  p: RelayerBudgetParameters,
): Promise<RelayerBudgetVerdict> {
  const hour = W.clientWindowSeconds;
  const [row] = await sql<
    { client_n: number; client_reset: number | null; day_wei: string; day_reset: number }[]
  >`
    with recent as (
      select created_at, ${cost(sql)} as wei,
        ${counts(sql)} and client = ${p.client}
          and created_at > now() - make_interval(secs => ${hour}) as mine
      from app.relayer_spend
      where created_at > least(now() - make_interval(secs => ${hour}), ${today(sql)})
    )
    select count(*) filter (where mine)::int as client_n,
      ceil(extract(epoch from min(created_at) filter (where mine)
        + make_interval(secs => ${hour}) - now()))::int as client_reset,
      coalesce(sum(wei) filter (where created_at >= ${today(sql)}), 0)::text as day_wei,
      ceil(extract(epoch from ${today(sql)} + interval '1 day' - now()))::int as day_reset
    from recent`;
  const spentTodayWei = BigInt(row?.day_wei ?? "0");
  if ((row?.client_n ?? 0) >= p.budget.perClientPerHour) {
    const retryAfterSeconds = Math.max(1, row?.client_reset ?? hour);
    return { ok: false, over: "client", retryAfterSeconds, spentTodayWei };
  }
  // Nothing once the day's budget is reached, nor a transaction that could pass it.
  if (spentTodayWei >= p.budget.perDayWei || spentTodayWei + p.maxWei > p.budget.perDayWei) {
    const retryAfterSeconds = Math.max(1, row?.day_reset ?? 1);
    return { ok: false, over: "day", retryAfterSeconds, spentTodayWei };
  }
  return { ok: true, spentTodayWei };
}

/**
 * Counts a transaction about to be signed for `client` against the budget, or says why not.
 * Run it inside the database transaction of the request it pays for: the lock it takes holds
 * to that transaction's end, so no two reservations on any process interleave, and a request
 * rolled back leaves no reservation behind.
 *
 * @example
 * const r = await reserveRelayerSpend(tx, { client, maxWei: gas * gasPrice, budget });
 * if (!r.ok) throw tooMany(r.retryAfterSeconds);
 */
export async function reserveRelayerSpend(
  tx: Sql,
  p: RelayerBudgetParameters,
): Promise<(RelayerBudgetVerdict & { ok: false }) | { ok: true; spendId: string }> {
  await tx`select pg_advisory_xact_lock(${W.lock}, 0)`;
  const verdict = await relayerBudgetVerdict(tx, p);
  if (!verdict.ok) return verdict;
  const [row] = await tx<{ spend_id: string }[]>`
    insert into app.relayer_spend (client, status, max_wei)
    values (${p.client}, 'reserved', ${p.maxWei.toString()}) returning spend_id::text`;
  if (!row) throw new Error("relayer spend insert returned no row");
  return { ok: true, spendId: row.spend_id };
}

/** The most a signed transaction can cost: its gas limit at its price, and its value. */
function maxCost(stored: StoredTx): bigint {
  const t = parseTransaction(stored.raw);
  return (t.gas ?? 0n) * (t.gasPrice ?? t.maxFeePerGas ?? 0n) + (t.value ?? 0n);
}

/**
 * The reservation's transaction is signed and stored: it counts at its maximum until mined.
 * Call it in the database transaction that stores `stored`, so a crash keeps both or neither.
 *
 * @example
 * await sql.begin(async (tx) => { await storeTx(tx); await markRelayerSpendSent(tx, id, stored); });
 */
export async function markRelayerSpendSent(sql: Sql, spendId: string, stored: StoredTx) {
  await sql`update app.relayer_spend set status = 'sent', tx_hash = ${stored.hash.toLowerCase()},
    max_wei = ${maxCost(stored).toString()} where spend_id = ${spendId}`;
}

/**
 * A stored transaction's outcome: mined (what it cost, reverted or not), or dropped (`null`:
 * its nonce went to another transaction, so it cost nothing). Idempotent.
 *
 * @example
 * await settleRelayerSpend(sql, stored, outcome.kind === "mined" ? outcome.receipt : null);
 */
export async function settleRelayerSpend(
  sql: Sql,
  stored: StoredTx,
  receipt: TransactionReceipt | null,
) {
  const hash = stored.hash.toLowerCase();
  if (!receipt) {
    await sql`update app.relayer_spend set status = 'released', settled_at = now()
      where tx_hash = ${hash} and status = 'sent'`;
    return;
  }
  const value = receipt.status === "success" ? (parseTransaction(stored.raw).value ?? 0n) : 0n;
  const spent = receipt.gasUsed * receipt.effectiveGasPrice + value;
  await sql`update app.relayer_spend set status = 'mined', spent_wei = ${spent.toString()},
    settled_at = now() where tx_hash = ${hash} and status <> 'mined'`;
}

/**
 * Nothing was sent for the reservation (the chain refused it, or signing failed): it counts
 * nothing, for the client's hour as for the day.
 */
export async function releaseRelayerSpend(sql: Sql, spendId: string) {
  await sql`update app.relayer_spend set status = 'released', settled_at = now()
    where spend_id = ${spendId} and status in ('reserved', 'sent')`;
}

/**
 * Wei counted against today's (UTC) budget: mined transactions at their cost, the others at
 * their maximum.
 *
 * @example
 * const spent = await relayerSpentToday(sql); // 1834000000000000n
 */
export async function relayerSpentToday(sql: Sql): Promise<bigint> {
  const [row] = await sql<{ wei: string }[]>`
    select coalesce(sum(${cost(sql)}), 0)::text as wei from app.relayer_spend
    where created_at >= ${today(sql)}`;
  return BigInt(row?.wei ?? "0");
}
