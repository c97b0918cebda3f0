import type { Config } from "../../lib/config.ts";

/**
 * The Safe Transaction Service of a configuration: SAFE_TX_SERVICE_URL, or (outside
 * production) the local stand-in on SAFE_TX_SERVICE_PORT. Undefined: the Safe poller is off.
 */
export function resolveSafeTxService(
  config: Config,
): { apiUrl: string; local: boolean } | undefined {
  if (config.SAFE_TX_SERVICE_URL) {
    return { apiUrl: config.SAFE_TX_SERVICE_URL.replace(/\/$/, ""), local: false };
  }
  if (config.LAUNCHPAD_ENV === "production") return undefined;
  return { apiUrl: `http://127.0.0.1:${config.SAFE_TX_SERVICE_PORT}`, local: true };
}
