import { decodeFunctionData, erc20Abi, type Hex } from "viem";
import type { PolicyRules } from "../protocol.ts";

/** What a signing call asks for, as the evaluators see it. */
export type SigningRequest =
  | { kind: "transaction"; to: string; value: bigint; data?: Hex; at: Date }
  | { kind: "message"; message: string; at: Date };

/** An evaluator returns a reason to refuse, or undefined to pass the call on. */
export type Evaluator = {
  name: string;
  evaluate: (r: SigningRequest, rules: PolicyRules) => string | undefined;
};

/**
 * The evaluator chain, run in this order on every signing call; the first refusal ends it.
 * The full trading-policy set (venues, leverage, budgets) joins this list in a later issue.
 */
export const EVALUATORS: Evaluator[] = [
  {
    name: "allowedUtcHours",
    evaluate: (r, rules) =>
      rules.allowedUtcHours && !rules.allowedUtcHours.includes(r.at.getUTCHours())
        ? `signing is not allowed at ${r.at.getUTCHours()}:00 UTC`
        : undefined,
  },
  {
    name: "toAllowlist",
    evaluate: (r, rules) =>
      r.kind === "transaction" &&
      rules.toAllowlist &&
      !rules.toAllowlist.includes(r.to.toLowerCase())
        ? `destination ${r.to} is not on the allowlist`
        : undefined,
  },
  {
    name: "maxValueWei",
    evaluate: (r, rules) =>
      r.kind === "transaction" &&
      rules.maxValueWei !== undefined &&
      r.value > BigInt(rules.maxValueWei)
        ? `value ${r.value} exceeds ${rules.maxValueWei} wei`
        : undefined,
  },
  {
    name: "approveAllowlist",
    evaluate: (r, rules) => {
      if (r.kind !== "transaction" || !rules.approveAllowlist || !r.data?.startsWith("0x095ea7b3"))
        return undefined;
      try {
        const { args } = decodeFunctionData({ abi: erc20Abi, data: r.data });
        const spender = String(args?.[0]).toLowerCase();
        return rules.approveAllowlist.includes(spender)
          ? undefined
          : `approve to ${spender} is not allowed`;
      } catch {
        return "malformed approve call"; // fail closed
      }
    },
  },
];

export type EvaluateReturnType = { ok: true } | { ok: false; evaluator: string; reason: string };

/**
 * Runs every evaluator in order against one policy version.
 *
 * @example
 * const verdict = evaluatePolicy({ kind: "message", message: "hi", at: new Date() }, policy.rules);
 */
export function evaluatePolicy(r: SigningRequest, rules: PolicyRules): EvaluateReturnType {
  for (const e of EVALUATORS) {
    const reason = e.evaluate(r, rules);
    if (reason) return { ok: false, evaluator: e.name, reason };
  }
  return { ok: true };
}
