import type { StewardClient } from "../../services/steward/client.ts";
import { HttpError } from "../errors.ts";
import { ORDER_LIMITS } from "../limits.ts";

/** What a perps order needs from the venue: markets, marks, and where signed actions go. */
export type PerpsExchange = {
  meta: () => Promise<{ universe: { name: string }[] }>;
  allMids: () => Promise<Record<string, string>>;
  exchange: (body: never) => Promise<unknown>;
};

export type PerpsOrderInput = {
  venue: string;
  asset: string;
  side: "long" | "short";
  size: string;
  leverage?: number;
  reduceOnly: boolean;
  limitPx?: string;
};

/** Hyperliquid prices: at most 5 significant figures (PROTOCOLS.md 1.3). */
function wirePrice(x: number): string {
  return Number(x.toPrecision(5)).toString();
}

let lastNonce = 0;
/** Venue nonces: the current time in ms, strictly increasing within this process. */
function nextNonce(): number {
  lastNonce = Math.max(Date.now(), lastNonce + 1);
  return lastNonce;
}

const venueError = (r: unknown): string | undefined => {
  const v = r as {
    status?: string;
    response?: string | { data?: { statuses?: ({ error?: string } | string)[] } };
  };
  if (v?.status !== "ok") return typeof v?.response === "string" ? v.response : "refused";
  const s = typeof v.response === "object" ? v.response.data?.statuses?.[0] : undefined;
  return s && typeof s === "object" && s.error ? s.error : undefined;
};

/**
 * A venue order through the signer: the leverage first (its own signed action, judged by
 * maxLeverage), then one IOC order at the mark ± slippage (or the given limit). On a venue
 * the signer does not know, the order is still put to it, to be refused (and reported).
 *
 * @example
 * const r = await buildPerpsOrder({ steward, perps, walletId, order });
 */
export async function buildPerpsOrder(p: {
  steward: Pick<StewardClient, "signVenueAction">;
  perps?: PerpsExchange;
  walletId: string;
  order: PerpsOrderInput;
}) {
  const o = p.order;
  if (!p.perps) {
    const r = await p.steward.signVenueAction(p.walletId, o.venue, {
      action: { type: "order", asset: o.asset, side: o.side, size: o.size },
      nonce: nextNonce(),
    });
    throw new HttpError("upstream_error", {
      message: `the signer signed for ${o.venue}, a venue this service cannot submit to (policy ${r.policyId})`,
    });
  }
  const [meta, mids] = await Promise.all([p.perps.meta(), p.perps.allMids()]);
  const index = meta.universe.findIndex((m) => m.name === o.asset);
  if (index < 0) {
    throw new HttpError("validation_failed", {
      message: `asset: ${o.asset} is not a market of ${o.venue}`,
      details: [{ path: "asset", message: "not a market of the venue" }],
    });
  }
  let leverageTx: unknown;
  if (o.leverage !== undefined) {
    const signed = await p.steward.signVenueAction(p.walletId, o.venue, {
      action: { type: "updateLeverage", asset: index, isCross: true, leverage: o.leverage },
      nonce: nextNonce(),
    });
    leverageTx = await p.perps.exchange(signed.exchange as never);
    const err = venueError(leverageTx);
    if (err)
      throw new HttpError("upstream_error", { message: `the venue refused the leverage: ${err}` });
  }
  const mark = Number(mids[o.asset]);
  const isBuy = o.side === "long";
  const px =
    o.limitPx ??
    wirePrice(mark * (isBuy ? 1 + ORDER_LIMITS.perpsSlippage : 1 - ORDER_LIMITS.perpsSlippage));
  const signed = await p.steward.signVenueAction(p.walletId, o.venue, {
    // Key order is part of the signed hash: a, b, p, s, r, t as the venue defines them.
    action: {
      type: "order",
      orders: [
        { a: index, b: isBuy, p: px, s: o.size, r: o.reduceOnly, t: { limit: { tif: "Ioc" } } },
      ],
      grouping: "na",
    },
    nonce: nextNonce(),
  });
  const venue = await p.perps.exchange(signed.exchange as never);
  const err = venueError(venue);
  if (err)
    throw new HttpError("upstream_error", { message: `the venue refused the order: ${err}` });
  return { policyId: signed.policyId, version: signed.version, venueResponse: venue, leverageTx };
}
