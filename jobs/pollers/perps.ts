import type { Sql } from "../../lib/db/client.ts";
import { insertAgentEvents } from "../../lib/events/store.ts";
import type { Logger } from "../../lib/logger.ts";
import { trySpend } from "../../lib/pollers/budget.ts";
import { PERPS_CHANGED_CHANNEL } from "../../lib/pollers/sources.ts";
import {
  type Cursor,
  type PollKey,
  readCursor,
  recordDeferral,
  recordFailure,
  recordSuccess,
} from "../../lib/pollers/state.ts";
import type { HyperliquidClient } from "../../services/hyperliquid/client.ts";
import {
  type ClearinghouseState,
  type Fill,
  INFO_PAGE,
  type LedgerUpdate,
} from "../../services/hyperliquid/protocol.ts";
import { POLLER_LIMITS } from "../limits.ts";
import { fillEvents, ledgerEvents } from "./perps-events.ts";
import {
  accountSignature,
  type DeferReason,
  PERPS_WEIGHT,
  PollDeferred,
  reserve,
  reserveTick,
  sendInfo,
  type VenuePacing,
} from "./perps-venue.ts";

export type PerpsPollContext = {
  sql: Sql;
  hl: HyperliquidClient;
  log: Logger;
  /** The venue's shared rate budget and 429 back-off. */
  pacing: VenuePacing;
  /**
   * Fills and ledger are read at least this often, changed or not: POLLER_LIMITS.perps, made
   * longer by each round for the number of accounts (jobs/pollers/rounds.ts).
   */
  sweepEveryMs: number;
  /** The clock of the sweep (a test moves it instead of waiting); default Date.now. */
  now?: () => number;
  /** Test mode only: called inside the commit transaction, after the events are written. */
  beforeCommit?: () => void;
};

export type PerpsPollResult =
  | { events: number; full: boolean }
  | { deferred: DeferReason }
  | { error: string };

const L = POLLER_LIMITS.perps;
const W = PERPS_WEIGHT;

/**
 * Every page of a time-range query from `start` (inclusive), up to `maxPages`; the first page's
 * weight is reserved by the caller, each further page takes its own. `complete`: nothing was
 * left unread (no page limit, budget or one-millisecond wall stopped it).
 */
async function pages<T extends { time: number }>(
  c: PerpsPollContext,
  type: "userFillsByTime" | "userNonFundingLedgerUpdates",
  read: (start: number) => Promise<T[]>,
  start: number,
  pageSize: number,
): Promise<{ rows: T[]; complete: boolean }> {
  const rows: T[] = [];
  const weight = type === "userFillsByTime" ? W.fills : W.ledger;
  let s = start;
  for (let i = 0; i < L.maxPages; i++) {
    if (i > 0 && !(await trySpend(c.sql, c.pacing.budget, weight)).ok) {
      return { rows, complete: false };
    }
    const page = await sendInfo(
      c.pacing,
      type,
      () => read(s),
      (p) => p.length,
    );
    rows.push(...page);
    if (page.length < pageSize) return { rows, complete: true };
    // The venue pages by time: the next page starts at the last time seen (dedup drops the
    // repeats). A full page all at one millisecond cannot be paged past; the next poll retries.
    const last = page.at(-1)?.time;
    if (last === undefined || last <= s) break;
    s = last;
  }
  return { rows, complete: false };
}

const maxTime = (rows: readonly { time: number }[]) =>
  rows.length === 0 ? null : Math.max(...rows.map((r) => r.time));

/**
 * The account's last clearinghouseState (holdings, NAV) and the hour's value for backfill, and
 * the notification that the agent was polled (PERPS_CHANGED_CHANNEL).
 */
async function saveAccount(tx: Sql, agentId: string, address: string, state: ClearinghouseState) {
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
  await tx`insert into app.perps_account_hours (address, hour, account_value, polled_at,
      venue_time)
    values (${address}, date_trunc('hour', ${venueTime}::timestamptz), ${m.accountValue}, now(),
      ${venueTime})
    on conflict (address, hour) do update set account_value = excluded.account_value,
      polled_at = excluded.polled_at, venue_time = excluded.venue_time
    where app.perps_account_hours.venue_time is null
      or app.perps_account_hours.venue_time <= excluded.venue_time`;
  // Delivered at commit, with the rows: readers see the new poll once told of it.
  await tx`select pg_notify(${PERPS_CHANGED_CHANNEL}, ${agentId})`;
}

/**
 * Adds the fills among `fresh` (events this transaction inserted) to their account's totals
 * (app.perps_fill_totals, the perps read's realized PnL, fees, wins and losses): only new rows
 * count, so the totals stay the sums over every stored fill.
 */
async function addFillTotals(tx: Sql, fresh: readonly { id: bigint; eventType: string }[]) {
  const ids = fresh.filter((e) => e.eventType === "trade.fill").map((e) => e.id.toString());
  if (ids.length === 0) return;
  await tx`insert into app.perps_fill_totals as t
      (agent_id, address, realized, fees, fills, wins, losses)
    select agent_id, data->>'account', coalesce(sum((data->>'closedPnl')::numeric), 0),
      coalesce(sum((data->>'fee')::numeric), 0), count(*),
      count(*) filter (where (data->>'closedPnl')::numeric > 0),
      count(*) filter (where (data->>'closedPnl')::numeric < 0)
    from app.agent_events where id = any(${ids}::bigint[])
    group by agent_id, data->>'account'
    on conflict (agent_id, address) do update set realized = t.realized + excluded.realized,
      fees = t.fees + excluded.fees, fills = t.fills + excluded.fills,
      wins = t.wins + excluded.wins, losses = t.losses + excluded.losses`;
}

/**
 * One poll of one perps account. Its clearinghouse state every tick (weight 2); its fills and
 * ledger updates since the cursor (minus an overlap) only when the state changed since they
 * were last read (`accountSignature`) or the sweep is due; all written with the new cursor in
 * one transaction. Each request first takes its weight from the venue's shared budget: when
 * this minute's is spent, or the poller backs off after a 429, the poll is deferred (recorded,
 * not failed) and a later tick asks again from the same cursor. A failure or timeout records
 * the error and leaves the cursor; dedup by venue id keeps every fill exactly once.
 */
export async function pollPerpsAccount(
  c: PerpsPollContext,
  agentId: string,
  address: string,
): Promise<PerpsPollResult> {
  const key: PollKey = { poller: "perps", agentId, target: address };
  const { cursor } = await readCursor(c.sql, key);
  const now = c.now?.() ?? Date.now();
  const since = (field: "fills" | "ledger") =>
    typeof cursor[field] === "number"
      ? Math.max(0, (cursor[field] as number) - L.overlapMs)
      : now - L.lookbackMs;
  // An account's first poll is a cheap one (its state: the panel has figures at once); its
  // history comes with its first sweep, a sweep period after it was first seen, or at once if
  // the account changes meanwhile.
  const first = cursor.sig === undefined;
  const seenAt = typeof cursor.fullAt === "number" ? cursor.fullAt : cursor.firstAt;
  const sinceFullMs = typeof seenAt === "number" ? now - seenAt : 0;
  let state: ClearinghouseState | undefined;
  try {
    const claimant = `${agentId}:${address}`;
    const { sweep } = await reserveTick(c.pacing, {
      claimant,
      sinceFullMs,
      sweepEveryMs: c.sweepEveryMs,
    });
    state = await sendInfo(c.pacing, "clearinghouseState", () => c.hl.clearinghouseState(address));
    const sig = accountSignature(state);
    const full = sweep || (!first && sig !== cursor.sig);
    let fills: { rows: Fill[]; complete: boolean } = { rows: [], complete: true };
    let ledger: { rows: LedgerUpdate[]; complete: boolean } = { rows: [], complete: true };
    if (full) {
      // Refused, a read after a change claims the head of the line: it goes before cheap ticks.
      if (!sweep) await reserve(c.pacing, W.fills + W.ledger, { claimant, claim: true });
      fills = await pages(
        c,
        "userFillsByTime",
        (s) => c.hl.userFillsByTime(address, s),
        since("fills"),
        INFO_PAGE.fills,
      );
      ledger = await pages(
        c,
        "userNonFundingLedgerUpdates",
        (s) => c.hl.userNonFundingLedgerUpdates(address, s),
        since("ledger"),
        INFO_PAGE.ledger,
      );
    }
    const events = [
      ...ledgerEvents(agentId, address, ledger.rows),
      ...fillEvents(agentId, address, fills.rows),
    ];
    // The state is the new reference only when everything up to it was read: otherwise the
    // next poll sees a change again and reads on from the cursor.
    const done: Cursor =
      full && fills.complete && ledger.complete
        ? { sig, fullAt: now }
        : first
          ? { sig, firstAt: now }
          : {};
    const read = state;
    const fresh = await c.sql.begin(async (t) => {
      const tx = t as unknown as Sql;
      const inserted = await insertAgentEvents({ sql: tx, events });
      await addFillTotals(tx, inserted);
      await saveAccount(tx, agentId, address, read);
      await recordSuccess(tx, key, {
        fills: maxTime(fills.rows),
        ledger: maxTime(ledger.rows),
        ...done,
      });
      c.beforeCommit?.();
      return inserted.length;
    });
    if (fresh > 0) c.log.info({ agentId, address, events: fresh }, "perps events");
    return { events: fresh, full };
  } catch (error) {
    if (error instanceof PollDeferred) {
      // A state already paid for still refreshes the holdings; its fills wait for a later tick.
      if (state) await saveAccount(c.sql, agentId, address, state);
      await recordDeferral(c.sql, key);
      c.log.debug({ agentId, address, why: error.why }, "perps poll deferred");
      return { deferred: error.why };
    }
    await recordFailure(c.sql, key, error);
    c.log.warn({ err: error, agentId, address }, "perps poll failed; the next tick retries");
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Polls every perps account an agent registered (role `perps`). */
export async function pollPerpsAgent(c: PerpsPollContext, agentId: string): Promise<void> {
  const accounts = await c.sql<{ address: string }[]>`
    select distinct address from app.agent_wallets where agent_id = ${agentId} and role = 'perps'`;
  for (const a of accounts) await pollPerpsAccount(c, agentId, a.address);
}
