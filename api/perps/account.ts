import { add, divDown, parseDec, sub, toDecString, ZERO } from "../../lib/agents/decimal.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { AssetPosition } from "../../services/hyperliquid/protocol.ts";

/** Decimals of a position's mark price (its value over its size, rounded down). */
export const MARK_DECIMALS = 8;

/**
 * The agent's perps wallet (the dashboard shows its first registered one) and what its perps
 * answers are built from, as one string: that wallet and its last poll (the poller writes the
 * account, its fills and ledger in one transaction).
 */
export async function perpsVersion(
  sql: Sql,
  agentId: string,
): Promise<{ address: string | null; version: string }> {
  const [v] = await sql<{ address: string; polled_at: Date | null }[]>`
    select w.address, a.polled_at from app.agent_wallets w
    left join app.perps_accounts a on a.address = w.address
    where w.agent_id = ${agentId} and w.role = 'perps' order by w.created_at limit 1`;
  return v
    ? { address: v.address, version: `${v.address}:${v.polled_at?.getTime() ?? "-"}` }
    : { address: null, version: "none" };
}

/**
 * One open position as the venue reported it at the last poll. `markPrice` is the venue's own
 * valuation (`positionValue / |szi|`): clearinghouseState carries no mark of its own.
 */
export function toPosition(a: AssetPosition) {
  const p = a.position;
  const size = parseDec(p.szi);
  const abs = size.v < 0n ? { v: -size.v, s: size.s } : size;
  return {
    coin: p.coin,
    side: size.v < 0n ? ("short" as const) : ("long" as const),
    size: toDecString(abs),
    entryPrice: p.entryPx,
    markPrice:
      abs.v === 0n ? null : toDecString(divDown(parseDec(p.positionValue), abs, MARK_DECIMALS)),
    positionValue: p.positionValue,
    leverage: { type: p.leverage.type, value: p.leverage.value },
    liquidationPrice: p.liquidationPx,
    unrealizedPnl: p.unrealizedPnl,
    marginUsed: p.marginUsed,
  };
}

/**
 * The agent's perps account as the perps poller stored it: the last clearinghouseState, and
 * its fills' realized PnL, fees and win/loss counts (app.perps_fill_totals, which the poller
 * keeps as the sums over the stored fills) (a closing fill with a positive `closedPnl`
 * is a win, a negative one a loss). `status`: `not_connected` without a perps wallet,
 * `pending` before the first poll (every figure 0), else `ok`.
 *
 * @example
 * const a = await readPerpsAccount(sql, "agent-1");
 */
export async function readPerpsAccount(sql: Sql, agentId: string) {
  // One round trip: the wallet, its last state and its fill totals (kept by the poller).
  const [r] = await sql<
    {
      address: string;
      account_value: string | null;
      withdrawable: string;
      margin_used: string;
      positions: AssetPosition[];
      venue_time: Date;
      realized: string | null;
      fees: string | null;
      fills: string | null;
      wins: string | null;
      losses: string | null;
    }[]
  >`select w.address, a.account_value::text, a.withdrawable::text, a.margin_used::text,
      a.positions, a.venue_time, t.realized::text, t.fees::text, t.fills::text, t.wins::text,
      t.losses::text
    from (select address from app.agent_wallets where agent_id = ${agentId} and role = 'perps'
      order by created_at limit 1) w
    left join app.perps_accounts a on a.address = w.address
    left join app.perps_fill_totals t on t.agent_id = ${agentId} and t.address = w.address`;
  const address = r?.address ?? null;
  const empty = {
    address,
    status: address ? ("pending" as const) : ("not_connected" as const),
    asOf: null as string | null,
    accountValue: "0",
    withdrawable: "0",
    marginUsed: "0",
    positions: [] as ReturnType<typeof toPosition>[],
    pnl: { realized: "0", fees: "0", unrealized: "0", total: "0" },
    trades: { fills: 0, wins: 0, losses: 0 },
  };
  if (!r || r.account_value === null) return empty;
  const positions = r.positions.map(toPosition);
  const unrealized = positions.reduce((s, p) => add(s, parseDec(p.unrealizedPnl)), ZERO);
  const realized = parseDec(r.realized ?? "0");
  const fees = parseDec(r.fees ?? "0");
  return {
    address,
    status: "ok" as const,
    asOf: r.venue_time.toISOString(),
    accountValue: toDecString(parseDec(r.account_value)),
    withdrawable: toDecString(parseDec(r.withdrawable)),
    marginUsed: toDecString(parseDec(r.margin_used)),
    positions,
    pnl: {
      realized: toDecString(realized),
      fees: toDecString(fees),
      unrealized: toDecString(unrealized),
      total: toDecString(sub(add(realized, unrealized), fees)),
    },
    trades: {
      fills: Number(r.fills ?? 0),
      wins: Number(r.wins ?? 0),
      losses: Number(r.losses ?? 0),
    },
  };
}

export type PerpsAccountView = Awaited<ReturnType<typeof readPerpsAccount>>;
