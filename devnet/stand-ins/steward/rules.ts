import type { PolicyResult, PolicyRule } from "../../../services/steward/protocol.ts";

/** What a request asks the signer to do, as Steward's rules read it. */
export type SignRequest =
  | { kind: "transaction"; to: string; value: bigint }
  | {
      kind: "typed-data";
      domain: { name?: unknown; chainId?: unknown; verifyingContract?: unknown };
      primaryType: string;
    };

const lower = (xs: unknown) =>
  Array.isArray(xs) ? xs.filter((x) => typeof x === "string").map((x) => x.toLowerCase()) : [];

/** One rule's verdict; a rule type this stand-in does not enforce passes (it is stored only). */
function judge(rule: PolicyRule, r: SignRequest): PolicyResult {
  const base = { policyId: rule.id, type: rule.type };
  const c = rule.config;
  if (rule.type === "approved-addresses" && r.kind === "transaction") {
    const listed = lower(c.addresses).includes(r.to.toLowerCase());
    const passed = c.mode === "blacklist" ? !listed : listed;
    return passed
      ? { ...base, passed }
      : { ...base, passed, reason: `Address ${r.to} is not approved` };
  }
  if (rule.type === "auto-approve-threshold" && r.kind === "transaction") {
    // The wei threshold only (`thresholdUsd` needs Steward's price oracle): above it, held.
    const t =
      typeof c.threshold === "string" && /^\d{1,78}$/.test(c.threshold) ? BigInt(c.threshold) : -1n;
    return r.value <= t
      ? { ...base, passed: true }
      : { ...base, passed: false, reason: "Value exceeds the auto-approve threshold" };
  }
  if (rule.type === "typed-data" && r.kind === "typed-data") {
    const d = r.domain;
    const fails = [
      Array.isArray(c.allowedDomainNames) &&
        !c.allowedDomainNames.includes(d.name) &&
        "domain.name",
      Array.isArray(c.allowedChainIds) &&
        !c.allowedChainIds.includes(Number(d.chainId)) &&
        "domain.chainId",
      Array.isArray(c.allowedPrimaryTypes) &&
        !c.allowedPrimaryTypes.includes(r.primaryType) &&
        "primaryType",
      Array.isArray(c.verifyingContractAllowlist) &&
        !lower(c.verifyingContractAllowlist).includes(String(d.verifyingContract).toLowerCase()) &&
        "domain.verifyingContract",
    ].filter(Boolean);
    return fails.length === 0
      ? { ...base, passed: true }
      : { ...base, passed: false, reason: `typed-data ${fails[0]} is not allowed` };
  }
  return { ...base, passed: true, reason: "Not applicable" };
}

/**
 * Steward's verdict over the agent's enabled rules, for the rule types this stand-in enforces
 * (`approved-addresses` and the wei `auto-approve-threshold` on transactions, `typed-data` on
 * EIP-712 signatures). As Steward's engine: a failed hard rule refuses, else a failed
 * auto-approve threshold holds the transaction for a person (`held`).
 *
 * @example
 * const { refused, held } = evaluateRules(store.rules(walletId), { kind: "transaction", to, value });
 */
export function evaluateRules(rules: PolicyRule[], r: SignRequest) {
  const results = rules.filter((x) => x.enabled).map((rule) => judge(rule, r));
  const hard = results.filter((x) => x.type !== "auto-approve-threshold");
  const refused = hard.some((x) => !x.passed);
  return { results, refused, held: !refused && results.some((x) => !x.passed) };
}

/** Steward signs no typed data for an agent without an enabled `typed-data` rule. */
export const TYPED_DATA_REQUIRED =
  "EIP-712 typed-data signing requires a `typed-data` policy for this agent (to constrain the domain/primaryType/message). Add one, or set STEWARD_ALLOW_UNSAFE_TYPED_DATA_SIGNING=true and STEWARD_ALLOW_VAULT_UNSAFE_TYPED_DATA_SIGNING=true only for audited compatibility flows.";
