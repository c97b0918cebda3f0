import type { NewAgentEvent } from "../../lib/events/store.ts";
import { PERPS_SOURCE } from "../../lib/pollers/sources.ts";
import type { Fill, LedgerUpdate } from "../../services/hyperliquid/protocol.ts";

export { PERPS_SOURCE };

const side = (szi: number) => (szi > 0 ? "long" : "short");

/** What every event of one venue record shares: its time, and its hash as the correlation id. */
const venueRecord = (agentId: string, r: { time: number; hash: string }) => ({
  agentId,
  source: PERPS_SOURCE,
  occurredAt: new Date(r.time),
  correlationId: `hl:${r.hash}`,
});

/**
 * The feed events of venue fills: one `trade.fill` per fill (id: the venue's `tid` and `oid`),
 * plus `trade.open` when the fill opens a position from flat (or flips it) and `trade.close`
 * with the fill's realized PnL when it takes the position to flat (or flips it). Fills of one
 * order share the venue's `hash`, which is their correlation id. Ids depend only on the
 * venue's ids, so a fill seen twice (overlapping polls) is stored once; the `oid` tells the
 * two sides of one trade apart (both fills carry its `tid`), which two agents of the service
 * may be.
 */
export function fillEvents(
  agentId: string,
  account: string,
  fills: readonly Fill[],
): NewAgentEvent[] {
  const out: NewAgentEvent[] = [];
  for (const f of fills) {
    const start = Number(f.startPosition);
    const signed = (f.side === "B" ? 1 : -1) * Number(f.sz);
    const end = Number((start + signed).toFixed(10));
    const base = { ...venueRecord(agentId, f), category: "trading" as const };
    const common = {
      venue: "hyperliquid",
      account,
      market: f.coin,
      price: f.px,
      tid: f.tid,
      oid: f.oid,
      hash: f.hash,
    };
    out.push({
      ...base,
      eventType: "trade.fill",
      sourceEventId: `fill:${f.tid}:${f.oid}`,
      data: {
        ...common,
        side: f.side === "B" ? "buy" : "sell",
        size: f.sz,
        dir: f.dir,
        fee: f.fee,
        feeToken: f.feeToken,
        closedPnl: f.closedPnl,
        startPosition: f.startPosition,
        crossed: f.crossed,
        ...(f.liquidation ? { liquidation: f.liquidation } : {}),
      },
    });
    const closes = start !== 0 && Math.sign(end) !== Math.sign(start);
    const opens = end !== 0 && Math.sign(end) !== Math.sign(start);
    if (closes) {
      out.push({
        ...base,
        eventType: "trade.close",
        sourceEventId: `close:${f.tid}:${f.oid}`,
        data: {
          ...common,
          side: side(start),
          size: String(Math.abs(start)),
          realizedPnl: f.closedPnl,
          fee: f.fee,
          liquidated: Boolean(f.liquidation),
        },
      });
    }
    if (opens) {
      out.push({
        ...base,
        eventType: "trade.open",
        sourceEventId: `open:${f.tid}:${f.oid}`,
        data: { ...common, side: side(end), size: String(Math.abs(end)) },
      });
    }
  }
  return out;
}

/** A transfer from the account's side: `peer` another account, or `via` its own other balance. */
type Transfer = { into: boolean; usdc: string; fee?: string; peer?: string; via?: string };

/**
 * A USDC transfer of the ledger as seen from `account`: into its perps balance or out of it
 * (the sender's side with its fee), with the other party or the account's own other balance
 * (`spot`, or another perp dex's name); undefined for another kind, another token, or a line
 * that neither starts nor ends at the account's perps balance. `send` names balances as
 * `sendAsset` does: "" the default USDC perp dex, "spot" the spot balance.
 */
function transferOf(
  account: string,
  d: { type: string } & Record<string, unknown>,
): Transfer | undefined {
  const me = account.toLowerCase();
  const from = String(d.user).toLowerCase();
  const to = String(d.destination).toLowerCase();
  const fee = typeof d.fee === "string" ? { fee: d.fee } : {};
  if (d.type === "send") {
    if (d.token !== "USDC" || typeof d.amount !== "string") return undefined;
    const into = to === me && d.destinationDex === "";
    if (into === (from === me && d.sourceDex === "")) return undefined; // not ours, or to itself
    // The other end: another account, or one of this account's own other balances.
    const [other, dex] = into ? [from, d.sourceDex] : [to, d.destinationDex];
    const end = other === me ? { via: String(dex) } : { peer: other };
    // A fee in another token (`feeToken`) is not taken from this USDC balance.
    const paid = !into && (d.feeToken ?? "USDC") === "USDC" ? fee : {};
    return { into, usdc: d.amount, ...paid, ...end };
  }
  const usdc = d.usdc;
  // A line whose fields are not the documented ones (the schema let it through as another
  // kind) is left out rather than stored as a transfer of no amount.
  if (typeof usdc !== "string") return undefined;
  if (d.type === "accountClassTransfer") return { into: d.toPerp === true, usdc, via: "spot" };
  if (d.type !== "internalTransfer" && d.type !== "subAccountTransfer") return undefined;
  if (from === to) return undefined;
  if (to === me) return { into: true, usdc, peer: from };
  if (from === me) return { into: false, usdc, peer: to, ...fee };
  return undefined;
}

/**
 * The feed events of non-funding ledger updates: `perps.deposit`, `perps.withdraw`,
 * `perps.transfer.in` and `perps.transfer.out` (USDC moved from or to spot, another perp dex,
 * another account or a sub-account: money in or out, never profit), `trade.liquidated`; other
 * kinds (vaults, spot tokens, …) are not in the feed. Id: the update's hash and kind (and a
 * transfer's side).
 */
export function ledgerEvents(
  agentId: string,
  account: string,
  updates: readonly LedgerUpdate[],
): NewAgentEvent[] {
  const out: NewAgentEvent[] = [];
  for (const u of updates) {
    const d = u.delta as Record<string, unknown> & { type: string };
    const base = { ...venueRecord(agentId, u), sourceEventId: `ledger:${u.hash}:${d.type}` };
    const t = transferOf(account, d);
    if (d.type === "deposit" || d.type === "withdraw") {
      out.push({
        ...base,
        eventType: d.type === "deposit" ? "perps.deposit" : "perps.withdraw",
        category: "treasury",
        data: {
          venue: "hyperliquid",
          account,
          usdc: d.usdc,
          ...(d.fee ? { fee: d.fee } : {}),
          hash: u.hash,
        },
      });
    } else if (t) {
      out.push({
        ...base,
        // Both parties' ledgers list the one line under one hash, and two agents of this
        // service may be those parties: each side's event needs an id of its own.
        sourceEventId: `${base.sourceEventId}:${t.into ? "in" : "out"}`,
        eventType: t.into ? "perps.transfer.in" : "perps.transfer.out",
        category: "treasury",
        data: {
          venue: "hyperliquid",
          account,
          kind: d.type,
          usdc: t.usdc,
          ...(t.fee ? { fee: t.fee } : {}),
          ...(t.peer ? { peer: t.peer } : { via: t.via }),
          hash: u.hash,
        },
      });
    } else if (d.type === "liquidation") {
      const positions = (d.liquidatedPositions as { coin: string; szi: string }[]) ?? [];
      out.push({
        ...base,
        eventType: "trade.liquidated",
        category: "trading",
        data: {
          venue: "hyperliquid",
          account,
          market: positions.map((x) => x.coin).join(",") || "perps",
          positions,
          liquidatedNtlPos: d.liquidatedNtlPos,
          accountValue: d.accountValue,
          leverageType: d.leverageType,
          hash: u.hash,
        },
      });
    }
  }
  return out;
}
