// An independent bigint model of the devnet curve, written from the documented formulas
// (contracts/README.md), used to check every on-chain trade to the wei.

export const TOTAL_SUPPLY = 10n ** 27n;
export const MAX_OFFERS = (TOTAL_SUPPLY * 8n) / 10n;
export const GWEI = 10n ** 9n;

export type CurveState = { offers: bigint; funds: bigint };

export type Curve = {
  R: bigint;
  A: bigint;
  T: bigint;
  K: bigint;
  rate: bigint;
};

export function curve(maxRaising: bigint, rateBps: bigint): Curve {
  const A = maxRaising / 3n;
  const T = MAX_OFFERS / 3n;
  return { R: maxRaising, A, T, K: A * (MAX_OFFERS + T), rate: rateBps };
}

export const ceilDiv = (a: bigint, b: bigint) => (a === 0n ? 0n : (a - 1n) / b + 1n);
const floorGwei = (v: bigint) => v - (v % GWEI);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

export function reserves(c: Curve, s: CurveState) {
  return { x: s.funds + c.A, y: s.offers + c.T };
}

export function fee(c: Curve, cost: bigint): bigint {
  return ceilDiv(cost * c.rate, 10_000n);
}

export function price(c: Curve, s: CurveState): bigint {
  const { x, y } = reserves(c, s);
  return (x * 10n ** 18n) / y;
}

/** Tokens for the amount that takes the raise exactly to maxRaising. */
export function capAmount(c: Curve, s: CurveState): bigint {
  const { y } = reserves(c, s);
  return min(s.offers, floorGwei(y - ceilDiv(c.K, c.R + c.A)));
}

export function buyExact(c: Curve, s: CurveState, amount: bigint) {
  const { x, y } = reserves(c, s);
  const cap = capAmount(c, s);
  const cost = amount === cap ? c.R - s.funds : ceilDiv(c.K, y - amount) - x;
  return { amount, cost, fee: fee(c, cost) };
}

export function buyWithFunds(c: Curve, s: CurveState, funds: bigint) {
  const budget = (funds * 10_000n) / (10_000n + c.rate);
  const remaining = c.R - s.funds;
  if (budget >= remaining) {
    const cost = remaining;
    return { amount: capAmount(c, s), cost, fee: fee(c, cost) };
  }
  const { x, y } = reserves(c, s);
  const amount = min(s.offers, floorGwei(y - ceilDiv(c.K, x + budget)));
  const cost = ceilDiv(c.K, y - amount) - x;
  return { amount, cost, fee: fee(c, cost) };
}

export function sell(c: Curve, s: CurveState, amount: bigint) {
  const { x, y } = reserves(c, s);
  const cost = x - ceilDiv(c.K, y + amount);
  return { amount, cost, fee: fee(c, cost) };
}
