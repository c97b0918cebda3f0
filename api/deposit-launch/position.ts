import { z } from "@hono/zod-openapi";
import { Wei } from "../http/schemas.ts";

/** What a depositor's position in one launch is computed from (indexed rows, as strings). */
export type PositionRow = {
  status: string;
  total_deposited: string;
  tokens_for_depositors: string | null;
  principal: string | null;
  claimed: string | null;
  refunded: string | null;
};

/** Full vesting in basis points. */
const VESTED = 10_000;

/** The position fields `depositPosition` returns, for the OpenAPI. */
export const PositionFields = {
  principal: Wei.openapi({ description: "BNB deposited and not withdrawn (0 if none)" }),
  claimed: Wei.openapi({ description: "Tokens claimed" }),
  claimable: Wei.openapi({ description: "Tokens claimable now (launched, not yet claimed)" }),
  refunded: Wei,
  refundable: Wei.openapi({ description: "BNB refundable now (refund enabled, not yet refunded)" }),
  allocation: Wei.nullable().openapi({
    description:
      "Tokens the principal entitles to: tokensForDepositors × principal / totalDeposited; null before the launch executes (the amount is fixed then)",
  }),
  vestedBps: z.number().int().min(0).max(VESTED).openapi({
    description:
      "Share of the allocation released, in basis points: the vault releases it whole at execution (no vesting schedule), so 10000 once launched, else 0",
  }),
};

/**
 * A depositor's position in one launch, as the vault itself computes it: `claimable` is
 * LaunchVault.claimable (0 before launch or once claimed), `refundable` the principal once
 * refunds are enabled and not yet taken. The one computation behind both
 * `/v2/users/me/deposits` and `/v2/users/{address}/launches`.
 *
 * @example
 * depositPosition({ status: "launched", total_deposited: "4", tokens_for_depositors: "100",
 *   principal: "1", claimed: "0", refunded: "0" }); // claimable "25", allocation "25"
 */
export function depositPosition(x: PositionRow) {
  const principal = BigInt(x.principal ?? "0");
  const claimed = BigInt(x.claimed ?? "0");
  const refunded = BigInt(x.refunded ?? "0");
  const total = BigInt(x.total_deposited);
  const launched = x.status === "launched";
  const allocation =
    launched && total > 0n ? (BigInt(x.tokens_for_depositors ?? "0") * principal) / total : null;
  const claimable = allocation !== null && claimed === 0n ? allocation : 0n;
  const refundable = x.status === "refund" && refunded === 0n ? principal : 0n;
  return {
    principal: principal.toString(),
    claimed: claimed.toString(),
    claimable: claimable.toString(),
    refunded: refunded.toString(),
    refundable: refundable.toString(),
    allocation: allocation === null ? null : allocation.toString(),
    vestedBps: launched ? VESTED : 0,
  };
}
