import type { PolicyRules } from "../../lib/policy/model.ts";
import type { PolicyRule } from "./protocol.ts";

/** The EIP-712 domain Hyperliquid's L1 actions are signed under (the "phantom agent"). */
const HYPERLIQUID_L1 = {
  allowedDomainNames: ["Exchange"],
  allowedChainIds: [1337],
  allowedPrimaryTypes: ["Agent"],
  verifyingContractAllowlist: ["0x0000000000000000000000000000000000000000"],
};

export type StewardRulesContext = {
  /** The spot DEX router (lowercase or not). */
  router?: string;
  /** The platform's own contracts the launch calls (identity registry, TokenManager2). */
  platform: readonly string[];
};

/**
 * The part of the service's trading policy Steward's own rule types can carry, as the rule set
 * `PUT /agents/:id/policies` takes (it replaces the agent's set): `typed-data` limited to
 * Hyperliquid's L1 signing domain when that venue is allowed (without one Steward signs no typed
 * data), and `approved-addresses` naming every contract and recipient the agent may send to,
 * when the policy makes that list finite (no `"*"` spot asset). The rest stays with the
 * service's evaluator chain (docs/policies.md has the table).
 *
 * @example
 * await steward.setPolicyRules(walletId, stewardRules(rules, { router, platform }));
 */
export function stewardRules(rules: PolicyRules, ctx: StewardRulesContext): PolicyRule[] {
  const out: PolicyRule[] = [];
  if (rules.venues.hyperliquid) {
    out.push({
      id: "launchpad-perps-signing",
      type: "typed-data",
      enabled: true,
      config: HYPERLIQUID_L1,
    });
  }
  const spot = rules.venues["bsc-dex-v2"];
  if (!spot?.assets.includes("*")) {
    const tokens = spot ? spot.assets.filter((a) => !spot.deny.includes(a)) : [];
    const addresses = [
      ...ctx.platform,
      ...(spot && ctx.router ? [ctx.router, ...tokens] : []),
      ...rules.approveAllowlist,
    ].map((a) => a.toLowerCase());
    out.push({
      id: "launchpad-recipients",
      type: "approved-addresses",
      enabled: true,
      config: { addresses: [...new Set(addresses)], mode: "whitelist" },
    });
  }
  return out;
}
