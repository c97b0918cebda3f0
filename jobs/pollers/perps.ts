import type { Sql } from "../../lib/db/client.ts";
import { insertAgentEvents } from "../../lib/events/store.ts";
import type { Logger } from "../../lib/logger.ts";
import { type PollKey, readCursor, recordFailure, recordSuccess } from "../../lib/pollers/state.ts";
import type { HyperliquidClient } from "../../services/hyperliquid/client.ts";
import { INFO_PAGE } from "../../services/hyperliquid/protocol.ts";
import { POLLER_LIMITS } from "../limits.ts";
import { fillEvents, ledgerEvents } from "./perps-events.ts";

export type PerpsPollContext = {
  sql: Sql;
  hl: HyperliquidClient;
  log: Logger;
  /** Test mode only: called inside the commit transaction, after the events are written. */
  beforeCommit?: () => void;
};

const L = POLLER_LIMITS.perps;

/** Every page of a time-range query from `start` (inclusive), up to `maxPages`. */
async function pages<T extends { time: number }>(
  read: (start: number) => Promise<T[]>,
  start: number,
  pageSize: number,
): Promise<T[]> {
  const all: T[] = [];
  let s = start;
  for (let i = 0; i < L.maxPages; i++) {
    const page = await read(s);
    all.push(...page);
    const last = page.at(-1)?.time;
    // The venue pages by time: the next page starts at the last time seen (dedup drops the
    // repeats). A full page all at one millisecond cannot be paged past; the next poll retries.
    if (page.length < pageSize || last === undefined || last <= s) break;
    s = last;
  }
  return all;
}

const maxTime = (rows: readonly { time: number }[]) =>
  rows.length === 0 ? null : Math.max(...rows.map((r) => r.time));

/**
 * One poll of one perps account: its clearinghouse state, fills and ledger updates since the
 * cursor (minus an overlap), written with their events and the new cursor in one transaction.
 * A failure or timeout records the error and leaves the cursor: the next tick asks again and
 * dedup by venue id keeps every fill exactly once.
 *
 * @example
 * await pollPerpsAccount(ctx, agentId, "0xabc…");
 */
export async function pollPerpsAccount(
  c: PerpsPollContext,
  agentId: string,
  address: string,
): Promise<{ events: number } | { error: string }> {
  const key: PollKey = { poller: "perps", agentId, target: address };
  const { cursor } = await readCursor(c.sql, key);
  const now = Date.now();
  const since = (field: "fills" | "ledger") =>
    typeof cursor[field] === "number"
      ? Math.max(0, (cursor[field] as number) - L.overlapMs)
      : now - L.lookbackMs;
  try {
    const state = await c.hl.clearinghouseState(address);
    const fills = await pages(
      (s) => c.hl.userFillsByTime(address, s),
      since("fills"),
      INFO_PAGE.fills,
    );
    const ledger = await pages(
      (s) => c.hl.userNonFundingLedgerUpdates(address, s),
      since("ledger"),
      INFO_PAGE.ledger,
    );
    const events = [
      ...ledgerEvents(agentId, address, ledger),
      ...fillEvents(agentId, address, fills),
    ];
    const fresh = await c.sql.begin(async (t) => {
      const tx = t as unknown as Sql;
      const inserted = await insertAgentEvents({ sql: tx, events });
      const m = state.marginSummary;
      const venueTime = new Date(state.time);
      await tx`insert into app.perps_accounts (address, agent_id, account_value, withdrawable,
          margin_used, positions, venue_time, polled_at)
        values (${address}, ${agentId}, ${m.accountValue}, ${state.withdrawable},
          ${m.totalMarginUsed}, ${tx.json(state.assetPositions as never)}, ${venueTime}, now())
        on conflict (address) do update set agent_id = excluded.agent_id,
          account_value = excluded.account_value, withdrawable = excluded.withdrawable,
          margin_used = excluded.margin_used, positions = excluded.positions,
          venue_time = excluded.venue_time, polled_at = excluded.polled_at
        where app.perps_accounts.venue_time <= excluded.venue_time`;
      await tx`insert into app.perps_account_hours (address, hour, account_value, polled_at)
        values (${address}, date_trunc('hour', ${venueTime}::timestamptz), ${m.accountValue}, now())
        on conflict (address, hour) do update set account_value = excluded.account_value,
          polled_at = excluded.polled_at`;
      await recordSuccess(tx, key, { fills: maxTime(fills), ledger: maxTime(ledger) });
      c.beforeCommit?.();
      return inserted.length;
    });
    if (fresh > 0) c.log.info({ agentId, address, events: fresh }, "perps events");
    return { events: fresh };
  } catch (error) {
    await recordFailure(c.sql, key, error);
    c.log.warn({ err: error, agentId, address }, "perps poll failed; the next tick retries");
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Polls every perps account an agent registered (role `perps`).
 *
 * @example
 * await pollPerpsAgent(ctx, agentId);
 */
export async function pollPerpsAgent(c: PerpsPollContext, agentId: string): Promise<void> {
  const accounts = await c.sql<{ address: string }[]>`
    select distinct address from app.agent_wallets where agent_id = ${agentId} and role = 'perps'`;
  for (const a of accounts) await pollPerpsAccount(c, agentId, a.address);
}

/** Agents with something for the perps poller to poll. */
export async function perpsAgents(sql: Sql): Promise<string[]> {
  const rows = await sql<{ agent_id: string }[]>`
    select distinct agent_id from app.agent_wallets where role = 'perps' order by agent_id`;
  return rows.map((r) => r.agent_id);
}
