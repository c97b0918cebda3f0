import type { Config } from "../../lib/config.ts";

/** Where the perps venue is; `local`: the stand-in started beside the service. */
export type HyperliquidEndpoint = { apiUrl: string; local: boolean; isMainnet: boolean };

/**
 * The perps venue of a configuration: HYPERLIQUID_API_URL, or (outside production) the local
 * stand-in on HYPERLIQUID_PORT. Undefined: no venue, the perps poller is off.
 *
 * @example
 * const hl = resolveHyperliquid(loadConfig()); // { apiUrl: "http://127.0.0.1:3014", local: true, … }
 */
export function resolveHyperliquid(config: Config): HyperliquidEndpoint | undefined {
  if (config.HYPERLIQUID_API_URL) {
    const apiUrl = config.HYPERLIQUID_API_URL.replace(/\/$/, "");
    return { apiUrl, local: false, isMainnet: !apiUrl.includes("testnet") };
  }
  if (config.LAUNCHPAD_ENV === "production") return undefined;
  return { apiUrl: `http://127.0.0.1:${config.HYPERLIQUID_PORT}`, local: true, isMainnet: true };
}
