import type {
  CancelAction,
  ExchangeRequest,
  ExchangeResponse,
  OrderAction,
  OrderStatus,
  UpdateLeverageAction,
} from "../../../services/hyperliquid/protocol.ts";
import { recoverL1Signer, toWire } from "../../../services/hyperliquid/protocol.ts";
import { type RestingOrder, UNIVERSE, type Venue } from "./venue.ts";

/** The venue's nonce window (PROTOCOLS.md 1.4): within (T - 2 days, T + 1 day), 100 kept. */
const NONCE_PAST_MS = 2 * 86_400_000;
const NONCE_FUTURE_MS = 86_400_000;
const NONCES_KEPT = 100;
/** Smallest order value the venue accepts, USD. */
const MIN_ORDER_USD = 10;

const err = (response: string): ExchangeResponse => ({ status: "err", response });

const decimals = (s: string) => (s.split(".")[1] ?? "").length;
const sigFigs = (s: string) => s.replace(/^-?0*\.?0*/, "").replace(".", "").length;

/**
 * `POST /exchange`: checks the EIP-712 signature over the action (the signer is the account
 * itself or an API wallet approved for it), the nonce, then runs the action against the venue.
 */
export async function handleExchange(
  venue: Venue,
  body: ExchangeRequest,
  isMainnet: boolean,
): Promise<ExchangeResponse> {
  let signer: string;
  try {
    signer = await recoverL1Signer(body, isMainnet);
  } catch {
    return err("Invalid signature");
  }
  const vault = body.vaultAddress?.toLowerCase();
  const principal = venue.state.agents[signer] ?? signer;
  const user = vault ?? principal;
  if (vault && principal !== vault) return err(`User or API Wallet ${signer} does not exist.`);
  if (!venue.account(user)) return err(`User or API Wallet ${signer} does not exist.`);

  const now = Date.now();
  if (body.nonce <= now - NONCE_PAST_MS || body.nonce >= now + NONCE_FUTURE_MS) {
    return err("Invalid nonce: nonce is outside the allowed window");
  }
  const kept = venue.state.nonces[signer] ?? [];
  if (kept.includes(body.nonce)) return err("Invalid nonce: duplicate nonce");
  if (kept.length >= NONCES_KEPT && body.nonce < Math.min(...kept)) {
    return err("Invalid nonce: nonce is smaller than the smallest kept nonce");
  }
  kept.push(body.nonce);
  kept.sort((a, b) => b - a);
  venue.state.nonces[signer] = kept.slice(0, NONCES_KEPT);

  const a = body.action;
  const r =
    a.type === "order"
      ? placeOrders(venue, user, a)
      : a.type === "cancel"
        ? cancel(venue, user, a)
        : a.type === "updateLeverage"
          ? updateLeverage(venue, user, a)
          : err(`Unsupported action ${(a as { type: string }).type}`);
  venue.save();
  return r;
}

function updateLeverage(venue: Venue, user: string, a: UpdateLeverageAction): ExchangeResponse {
  const u = UNIVERSE[a.asset];
  if (!u) return err(`Invalid asset ${a.asset}`);
  if (!Number.isInteger(a.leverage) || a.leverage < 1 || a.leverage > u.maxLeverage) {
    return err(`Invalid leverage value`);
  }
  (venue.account(user, true) as NonNullable<ReturnType<Venue["account"]>>).leverage[u.name] = {
    value: a.leverage,
    isCross: a.isCross,
  };
  return { status: "ok", response: { type: "default" } };
}

function cancel(venue: Venue, user: string, a: CancelAction): ExchangeResponse {
  const statuses = a.cancels.map((c) => {
    const o = venue.state.orders.find((x) => x.oid === c.o && x.user === user);
    if (!o) return { error: "Order was never placed, already canceled, or filled." };
    venue.state.orders = venue.state.orders.filter((x) => x !== o);
    return "success" as const;
  });
  return { status: "ok", response: { type: "cancel", data: { statuses } } };
}

function placeOrders(venue: Venue, user: string, a: OrderAction): ExchangeResponse {
  const statuses: OrderStatus[] = a.orders.map((o) => {
    const u = UNIVERSE[o.a];
    if (!u) return { error: `Invalid asset ${o.a}` };
    if (!/^\d+(\.\d+)?$/.test(o.s) || decimals(o.s) > u.szDecimals || Number(o.s) <= 0) {
      return { error: "Order has invalid size." };
    }
    if (
      !/^\d+(\.\d+)?$/.test(o.p) ||
      decimals(o.p) > 6 - u.szDecimals ||
      (sigFigs(o.p) > 5 && !Number.isInteger(Number(o.p)))
    ) {
      return { error: "Order has invalid price." };
    }
    const coin = u.name;
    const px = Number(o.p);
    let sz = Number(o.s);
    const mark = venue.mark(coin);
    const pos = venue.account(user)?.positions[coin]?.szi ?? 0;
    const cloid = o.c ? { cloid: o.c } : {};
    if (o.r) {
      if (pos === 0 || pos > 0 === o.b) {
        return { error: "Reduce only order would increase position." };
      }
      sz = Math.min(sz, Math.abs(pos));
    }
    if (sz * mark < MIN_ORDER_USD && !o.r) {
      return { error: `Order must have minimum value of $${MIN_ORDER_USD}.` };
    }
    const oid = venue.state.nextOid++;
    // The order rests on the (book-less) venue: a trigger order until its price, a limit one
    // until the mark reaches it.
    const rest = (trigger?: RestingOrder["trigger"]) => {
      venue.state.orders.push({
        oid,
        user,
        coin,
        isBuy: o.b,
        px,
        sz,
        reduceOnly: o.r,
        ...(trigger && { trigger }),
        time: Date.now(),
        ...cloid,
      });
      return { resting: { oid, ...cloid } };
    };
    if ("trigger" in o.t) {
      return rest({ ...o.t.trigger, triggerPx: Number(o.t.trigger.triggerPx) });
    }
    const crosses = o.b ? px >= mark : px <= mark;
    const opening = !o.r && (pos === 0 || pos > 0 === o.b || sz > Math.abs(pos));
    if (opening) {
      const s = venue.summary(user);
      const lev = venue.leverageOf(user, coin).value;
      const added = (pos === 0 || pos > 0 === o.b ? sz : sz - Math.abs(pos)) * mark;
      if (s.marginUsed + added / lev > s.accountValue) {
        return { error: `Insufficient margin to place order. asset=${o.a}` };
      }
    }
    const tif = o.t.limit.tif;
    if (crosses) {
      if (tif === "Alo") {
        return {
          error: `Post only order would have immediately matched, bbo was ${toWire(mark)}. asset=${o.a}`,
        };
      }
      // A crossing order takes liquidity at the mark (the stand-in has no book depth).
      venue.fill(user, coin, o.b, sz, mark, { oid, crossed: true });
      return { filled: { totalSz: toWire(sz), avgPx: toWire(mark), oid, ...cloid } };
    }
    if (tif === "Ioc") {
      return {
        error: `Order could not immediately match against any resting orders. asset=${o.a}`,
      };
    }
    return rest();
  });
  return { status: "ok", response: { type: "order", data: { statuses } } };
}
