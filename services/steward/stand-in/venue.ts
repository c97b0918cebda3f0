import { createHyperliquidClient } from "../../hyperliquid/client.ts";
import { type L1Action, signL1Action } from "../../hyperliquid/protocol.ts";
import { STEWARD_LIMITS } from "../../limits.ts";
import type { PerpsVenue } from "./snapshot.ts";

/**
 * The perps venue as the signer sees it: Hyperliquid's info API for the snapshot (universe,
 * marks, the wallet's positions and fills) and its L1 signing scheme for the actions it
 * approves. Reads are not retried: a decision waits for no backoff, it fails closed.
 *
 * @example
 * const perps = hyperliquidVenue({ apiUrl: "http://127.0.0.1:3014", isMainnet: true });
 */
export function hyperliquidVenue(p: { apiUrl: string; isMainnet: boolean }): PerpsVenue {
  const hl = createHyperliquidClient({
    apiUrl: p.apiUrl,
    timeoutMs: STEWARD_LIMITS.venueTimeoutMs,
    retries: 0,
  });
  return {
    meta: () => hl.meta(),
    allMids: () => hl.allMids(),
    clearinghouseState: (user) => hl.clearinghouseState(user),
    userFillsByTime: (user, start, end) => hl.userFillsByTime(user, start, end),
    sign: (account, action, nonce) =>
      signL1Action({
        account,
        action: action as unknown as L1Action,
        nonce,
        isMainnet: p.isMainnet,
      }),
  };
}
