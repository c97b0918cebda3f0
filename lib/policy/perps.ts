import type { Intent, OpenPosition, Side, UnknownIntent } from "./intent.ts";
import { PERPS_VENUE, USD_SCALE, unitsToUsd } from "./model.ts";

// The perps venue's order actions (Hyperliquid's `POST /exchange`, PROTOCOLS.md 1.3) decoded
// into intents. Pure: the venue's universe, mark prices and positions come in a snapshot.

/** One order of an `order` action, wire format. */
export type WireOrder = {
  a: number;
  b: boolean;
  p: string;
  s: string;
  r: boolean;
  t: { limit: { tif: "Alo" | "Ioc" | "Gtc" } } | { trigger: Record<string, unknown> };
  c?: string;
};
export type OrderAction = { type: "order"; orders: WireOrder[]; grouping: string };
export type UpdateLeverageAction = {
  type: "updateLeverage";
  asset: number;
  isCross: boolean;
  leverage: number;
};
export type PerpsAction = OrderAction | UpdateLeverageAction | { type: string };

/** A venue position as `clearinghouseState` reports it (`szi` signed: negative is short). */
export type VenuePosition = { coin: string; szi: string; leverage: number };

export type PerpsContext = {
  /** `meta.universe`: index -> coin, the venue's own leverage cap. */
  universe: readonly { name: string; maxLeverage: number }[];
  /** Mark (mid) prices by coin, decimal strings. */
  marks: Readonly<Record<string, string>>;
  positions: readonly VenuePosition[];
  /** Leverage the signer last set for a coin (absent: the position's, else the venue's cap). */
  leverage: Readonly<Record<string, number>>;
};

const DEC = /^\d{1,20}(\.\d{1,18})?$/;

/** A decimal string as (integer, scale). */
function dec(text: string): { v: bigint; s: number } {
  const [i, f = ""] = text.split(".");
  return { v: BigInt(`${i}${f}`), s: f.length };
}

/**
 * size × price in USD with 18 decimals, rounded up (a notional is never understated).
 *
 * @example
 * notional("0.5", "60000"); // 30000 USD
 */
export function notional(size: string, price: string): bigint {
  const a = dec(size);
  const b = dec(price);
  const v = a.v * b.v;
  const s = a.s + b.s;
  if (s <= USD_SCALE) return v * 10n ** BigInt(USD_SCALE - s);
  const div = 10n ** BigInt(s - USD_SCALE);
  return (v + div - 1n) / div;
}

const unknown = (reason: string): UnknownIntent => ({
  kind: "unknown",
  manual: false,
  code: "call_unknown",
  reason,
  summary: {},
});

/** The venue's open positions as the evaluators count them, valued at the mark. */
export function perpsPositions(
  positions: readonly VenuePosition[],
  marks: Readonly<Record<string, string>>,
): OpenPosition[] {
  return positions
    .filter((p) => DEC.test(p.szi.replace(/^-/, "")) && dec(p.szi.replace(/^-/, "")).v !== 0n)
    .map((p) => {
      const size = p.szi.replace(/^-/, "");
      const mark = marks[p.coin];
      return {
        venue: PERPS_VENUE,
        asset: p.coin,
        side: (p.szi.startsWith("-") ? "short" : "long") as Side,
        // No mark for a held coin: count it at an unbounded value rather than zero.
        notionalUsd: mark && DEC.test(mark) ? notional(size, mark) : 2n ** 128n,
      };
    });
}

/**
 * Decodes one venue action into an intent: an order (exactly one, so the verdict is about
 * one position) or a leverage change. Unknown action types, asset indexes or malformed
 * numbers become `unknown`.
 *
 * @example
 * const intent = decodePerpsAction({ type: "order", orders: [o], grouping: "na" }, ctx);
 */
export function decodePerpsAction(action: PerpsAction, ctx: PerpsContext): Intent {
  if (action.type === "updateLeverage") {
    const a = action as UpdateLeverageAction;
    const coin = ctx.universe[a.asset]?.name;
    if (!coin || !Number.isInteger(a.leverage) || a.leverage < 1) {
      return unknown("updateLeverage names an unknown asset or a malformed leverage");
    }
    return {
      kind: "leverage",
      venue: PERPS_VENUE,
      asset: coin,
      leverage: a.leverage,
      summary: { venue: PERPS_VENUE, asset: coin, leverage: String(a.leverage) },
    };
  }
  if (action.type !== "order") return unknown(`venue action ${action.type} is not traded`);
  const orders = (action as OrderAction).orders;
  if (!Array.isArray(orders) || orders.length !== 1) {
    return unknown("an order action must carry exactly one order");
  }
  const o = orders[0] as WireOrder;
  const market = ctx.universe[o.a];
  if (!market) return unknown(`asset index ${o.a} is not on the venue`);
  if (!DEC.test(o.s) || !DEC.test(o.p) || dec(o.s).v === 0n) {
    return unknown("order size or price is not a positive decimal");
  }
  const coin = market.name;
  const mark = ctx.marks[coin];
  if (!mark || !DEC.test(mark)) return unknown(`no mark price for ${coin}`);
  const side: Side = o.b ? "long" : "short";
  const held = ctx.positions.find((p) => p.coin === coin);
  const heldAbs = held?.szi.replace(/^-/, "") ?? "0";
  if (!DEC.test(heldAbs)) return unknown(`the venue reports a malformed size for ${coin}`);
  const heldUnits = notional(heldAbs, "1");
  const heldSide: Side | undefined =
    held && heldUnits !== 0n ? (held.szi.startsWith("-") ? "short" : "long") : undefined;
  const leverage = ctx.leverage[coin] ?? held?.leverage ?? market.maxLeverage;
  const base = {
    venue: PERPS_VENUE,
    asset: coin,
    size: o.s,
    limitPx: o.p,
    markPx: mark,
    reduceOnly: String(o.r),
    leverage: String(leverage),
  };
  // Reducing: reduce-only, or against the held side for no more than the held size.
  const sizeUnits = notional(o.s, "1");
  if (o.r || (heldSide !== undefined && heldSide !== side && sizeUnits <= heldUnits)) {
    return {
      kind: "trade",
      venue: PERPS_VENUE,
      asset: coin,
      side: heldSide ?? side,
      action: "close",
      notionalUsd: 0n,
      leverage,
      summary: { ...base, side: heldSide ?? side, action: "close", notionalUsd: "0" },
    };
  }
  // Flipping: the part beyond the held size opens a new position on the other side.
  const opened = heldSide !== undefined && heldSide !== side ? sizeUnits - heldUnits : sizeUnits;
  const scale = 10n ** BigInt(USD_SCALE);
  const notionalUsd = (opened * notional("1", mark) + scale - 1n) / scale;
  return {
    kind: "trade",
    venue: PERPS_VENUE,
    asset: coin,
    side,
    action: "open",
    notionalUsd,
    leverage,
    summary: { ...base, side, action: "open", notionalUsd: unitsToUsd(notionalUsd) },
  };
}
