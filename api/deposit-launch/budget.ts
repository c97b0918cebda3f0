import { formatEther } from "viem";
import type { Sql } from "../../lib/db/client.ts";
import { countRelayerBudgetRefusal } from "../../lib/metrics/relayer.ts";
import {
  type RelayerBudget,
  type RelayerBudgetVerdict,
  relayerBudgetVerdict,
  reserveRelayerSpend,
} from "../../lib/relayer/spend.ts";
import { HttpError } from "../errors.ts";

export type RelayerBudgetCheckParameters = { budget: RelayerBudget; client: string };

/**
 * 429 while the client's hour or the day has no room for another relayer-paid launch: asked
 * before any chain read or image fetch, so a refused client costs one query.
 *
 * @example
 * await refuseOverBudget(sql, { budget, client: clientBucket(c.get("clientIp")) });
 */
export async function refuseOverBudget(sql: Sql, p: RelayerBudgetCheckParameters): Promise<void> {
  const verdict = await relayerBudgetVerdict(sql, { ...p, maxWei: 0n });
  if (!verdict.ok) throw tooMany(verdict, p.budget);
}

/**
 * Counts the launch about to be signed (at most `maxWei`) against the budget inside the
 * request's transaction `tx`, or throws the 429 that rolls it back. Returns the reservation.
 *
 * @example
 * const spendId = await reserveOrRefuse(tx, { budget, client, maxWei });
 */
export async function reserveOrRefuse(
  tx: Sql,
  p: RelayerBudgetCheckParameters & { maxWei: bigint },
): Promise<string> {
  const reserved = await reserveRelayerSpend(tx, p);
  if (!reserved.ok) throw tooMany(reserved, p.budget);
  return reserved.spendId;
}

function tooMany(v: RelayerBudgetVerdict & { ok: false }, budget: RelayerBudget): HttpError {
  countRelayerBudgetRefusal(v.over);
  const why =
    v.over === "client"
      ? `the relayer pays for at most ${budget.perClientPerHour} launches an hour from one client address (an IPv6 /64 is one)`
      : `the relayer's budget for today (${formatEther(budget.perDayWei)} BNB, UTC day) is spent`;
  return new HttpError("rate_limited", {
    message: `${why}; retry after ${v.retryAfterSeconds} s, or pay for it from your own wallet: POST /v2/launches/transaction answers the transaction to send`,
    headers: { "Retry-After": String(v.retryAfterSeconds) },
  });
}
