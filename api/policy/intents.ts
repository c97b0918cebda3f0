import type { Hex } from "viem";
import type { Intent } from "../../lib/policy/intent.ts";
import { bnbUsd, type SpotChain } from "../../lib/policy/snapshot.ts";

type Price = { answer: bigint; decimals: number };

/**
 * A BSC transaction's intent, with the BNB/USD price read first when it goes to the DEX router
 * (a spot notional); a price that cannot be read makes it an unknown call, refused closed.
 */
export async function bnbPriceIntent(
  spot: SpotChain | undefined,
  tx: { to: Hex },
  decode: (price: Price) => Intent,
): Promise<{ intent: Intent; bnbPrice?: Price }> {
  try {
    const toRouter = spot && tx.to.toLowerCase() === spot.router.toLowerCase();
    const bnbPrice = toRouter && spot ? await bnbUsd(spot) : { answer: 0n, decimals: 8 };
    return { intent: decode(bnbPrice), bnbPrice: toRouter ? bnbPrice : undefined };
  } catch (error) {
    return {
      intent: {
        kind: "unknown",
        manual: false,
        code: "state_unavailable",
        reason: `the BNB price could not be read: ${(error as Error).message.split("\n")[0]}`,
        summary: { to: tx.to.toLowerCase() },
      },
    };
  }
}

/** An order on a venue the service does not know, as the venue evaluator will see it. */
export function unknownVenueOrder(venue: string, action: Record<string, unknown>): Intent {
  const text = (v: unknown) => (typeof v === "string" ? v.slice(0, 50) : "?");
  return {
    kind: "trade",
    venue: venue.slice(0, 50),
    asset: text(action.asset),
    side: action.side === "short" ? "short" : "long",
    action: "open",
    notionalUsd: 0n,
    leverage: 1,
    summary: { venue: venue.slice(0, 50), type: text(action.type), asset: text(action.asset) },
  };
}
