import { z } from "@hono/zod-openapi";

const SCALE = 10n ** 18n;

/**
 * A USD amount kept as an integer with 18 decimals (as the indexer stores it) as an exact
 * decimal string without trailing zeros.
 *
 * @example
 * usdString("1234500000000000000"); // "1.2345"
 */
export function usdString(v: string | bigint): string {
  const n = BigInt(v);
  const sign = n < 0n ? "-" : "";
  const a = n < 0n ? -n : n;
  const frac = (a % SCALE).toString().padStart(18, "0").replace(/0+$/, "");
  return `${sign}${a / SCALE}${frac ? `.${frac}` : ""}`;
}

/** As `usdString`, null for null. */
export function usdOrNull(v: string | bigint | null): string | null {
  return v === null ? null : usdString(v);
}

/** BNB wei (or BNB wei per whole token) in USD at `rate` (1e18 = 1 USD per BNB), floored. */
export function weiToUsd(wei: string | bigint, rate: string | bigint | null): string | null {
  return rate === null ? null : usdString((BigInt(wei) * BigInt(rate)) / SCALE);
}

/** An exact decimal USD figure: a string, so no precision is lost in JSON. */
export const Usd = z
  .string()
  .regex(/^-?[0-9]+(\.[0-9]{1,18})?$/)
  .openapi({
    example: "0.000012345678",
    description: "USD as an exact decimal string (up to 18 decimals, floored)",
  });
