/**
 * Exact decimals for money: `v / 10^s`. Every value the dashboard reports is a wei amount
 * times prices with power-of-ten denominators, so a decimal string represents it exactly;
 * only a division (runway) rounds, and it says so.
 */
export type Dec = { v: bigint; s: number };

export const ZERO: Dec = { v: 0n, s: 0 };

const pow10 = (n: number) => 10n ** BigInt(n);

function align(a: Dec, b: Dec): [bigint, bigint, number] {
  const s = Math.max(a.s, b.s);
  return [a.v * pow10(s - a.s), b.v * pow10(s - b.s), s];
}

export const add = (a: Dec, b: Dec): Dec => {
  const [x, y, s] = align(a, b);
  return { v: x + y, s };
};
export const sub = (a: Dec, b: Dec): Dec => add(a, { v: -b.v, s: b.s });
export const mul = (a: Dec, b: Dec): Dec => ({ v: a.v * b.v, s: a.s + b.s });
export const cmp = (a: Dec, b: Dec): number => {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
};
/** An integer amount with `decimals` decimals (wei: 18). */
export const units = (amount: bigint, decimals: number): Dec => ({ v: amount, s: decimals });
export const sum = (xs: Dec[]): Dec => xs.reduce(add, ZERO);

/**
 * Parses a plain decimal string ("12", "0.5", "-3.25").
 *
 * @example
 * parseDec("12.50"); // { v: 1250n, s: 2 }
 */
export function parseDec(text: string): Dec {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`not a decimal: ${text}`);
  const frac = m[3] ?? "";
  const v = BigInt(`${m[2]}${frac}`);
  return { v: m[1] ? -v : v, s: frac.length };
}

/**
 * The exact decimal string, without trailing zeros ("1.5", "0", "-0.001").
 *
 * @example
 * toDecString({ v: 1500n, s: 3 }); // "1.5"
 */
export function toDecString(d: Dec): string {
  const neg = d.v < 0n;
  const digits = (neg ? -d.v : d.v).toString().padStart(d.s + 1, "0");
  const int = digits.slice(0, digits.length - d.s);
  const frac = digits.slice(digits.length - d.s).replace(/0+$/, "");
  const text = frac ? `${int}.${frac}` : int;
  return neg && text !== "0" ? `-${text}` : text;
}

/**
 * `a / b` rounded down to `places` decimals (b > 0).
 *
 * @example
 * divDown(parseDec("10"), parseDec("3"), 2); // 3.33
 */
export function divDown(a: Dec, b: Dec, places: number): Dec {
  const [x, y] = align(a, b);
  return { v: (x * pow10(places)) / y, s: places };
}
