// BNB -> USD conversion for the indexer: integers only, 1e18 = 1 USD.
import { WAD } from "./settings.ts";

/**
 * A feed answer with `decimals` decimals as USD per BNB scaled to 1e18.
 *
 * @example
 * usdRate(60000000000n, 8); // 600n * 10n ** 18n
 */
export function usdRate(answer: bigint, decimals: number): bigint {
  return decimals <= 18
    ? answer * 10n ** BigInt(18 - decimals)
    : answer / 10n ** BigInt(decimals - 18);
}

/**
 * BNB wei (or BNB wei per whole token) in USD scaled to 1e18, floored; null without a rate.
 *
 * @example
 * toUsd(10n ** 18n, 600n * 10n ** 18n); // 600n * 10n ** 18n
 */
export function toUsd(wei: bigint, rate: bigint | null): bigint | null {
  return rate === null ? null : (wei * rate) / WAD;
}
