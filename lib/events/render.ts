import { formatEther } from "viem";

// The one renderer of feed lines: `data` is stored as received and turned into text at read
// time, so a wording change applies to every past event. One template per known type; any
// other type gets a generic line. Templates never throw: a field missing from old data
// renders as "?".

type Data = Record<string, unknown>;
const s = (v: unknown) => (v === undefined || v === null || v === "" ? "?" : String(v));
const short = (v: unknown) => {
  const t = s(v);
  return /^0x[0-9a-f]{40,}$/i.test(t) ? `${t.slice(0, 6)}…${t.slice(-4)}` : t;
};
/** A wei amount (decimal string) as BNB or whole tokens (18 decimals), at most 6 decimals. */
const units = (v: unknown) => {
  try {
    const [whole, frac = ""] = formatEther(BigInt(s(v))).split(".");
    const f = frac.slice(0, 6).replace(/0+$/, "");
    return f ? `${whole}.${f}` : (whole as string);
  } catch {
    return "?";
  }
};
/** Basis points as a percent with 2 decimals. */
const pct = (v: unknown) => {
  const n = Number(v);
  return Number.isInteger(n) ? `${(n / 100).toFixed(2)}%` : "?%";
};
/** A perps transfer's other end: another account, or the account's spot or another perp dex. */
const otherEnd = (d: Record<string, unknown>) =>
  d.peer ? short(d.peer) : !d.via || d.via === "spot" ? "spot" : `the ${s(d.via)} perp dex`;
const usd = (v: unknown) => {
  const n = Number(v);
  return Number.isFinite(n) ? `$${n.toFixed(n < 1 ? 4 : 2)}` : "$?";
};
const policyLine = (verb: string) => (d: Data) => {
  const what =
    d.kind === "trade"
      ? ` ${d.action === "close" ? "closing" : "opening"} ${s(d.side)} ${short(d.asset)} on ${s(d.venue)}${d.action === "open" ? ` (${usd(d.notionalUsd)})` : ""}`
      : d.kind === "leverage"
        ? ` leverage ${s(d.leverage)} on ${s(d.asset)}`
        : d.kind
          ? ` a ${s(d.kind)}`
          : " a request";
  const why = d.reason ? `: ${d.evaluator ? `${s(d.evaluator)}, ` : ""}${s(d.reason)}` : "";
  return `Signer ${verb}${what}${why}`;
};

const TEMPLATES: Record<string, (d: Data) => string> = {
  "policy.applied": policyLine("approved"),
  "policy.denied": policyLine("denied"),
  "policy.needs_manual": policyLine("held for manual approval"),
  "policy.anomaly": (d) =>
    `Policy auditor flagged ${s(d.rule)} (${s(d.severity)}): expected ${s(d.expected)}, got ${s(d.actual)}`,
  "pledge.updated": (d) =>
    `Sell pledge ${d.change === "loosening" ? `loosens on ${s(d.effectiveAt)}` : "tightened"}: no sale for ${s(d.lockDays)} days after launch, at most ${s(d.maxDailySellPercent)}% of its holding a day, loosening after ${s(d.loosenDelayDays)} days`,
  "pledge.loosened": (d) =>
    `Sell pledge loosened as announced: no sale for ${s(d.lockDays)} days after launch, at most ${s(d.maxDailySellPercent)}% of its holding a day, loosening after ${s(d.loosenDelayDays)} days`,
  "safe.tx.signed_by_steward": (d) => `Signer co-signed Safe transaction ${short(d.safeTxHash)}`,
  "session.opened": () => "Signing session opened",
  "session.revoked": () => "Signing session revoked",
  // No `to`: the transaction created a contract (a Safe, a token), it was not sent "to ?".
  "transaction.sent": (d) =>
    d.to
      ? `Sent transaction ${short(d.txHash)} to ${short(d.to)}`
      : `Sent transaction ${short(d.txHash)} creating a contract`,
  "credits.low": (d) => `${s(d.provider)} credits are low: ${usd(d.balanceUsd)} left`,
  "credits.depleted": (d) => `${s(d.provider)} credits are used up`,
  "credits.topped_up": (d) => `${s(d.provider)} credits topped up to ${usd(d.balanceUsd)}`,
  "inference.spent": (d) => {
    const n = Number(d.deliveries ?? 1);
    const tokens =
      d.tokensIn !== undefined || d.tokensOut !== undefined
        ? ` (${s(d.tokensIn ?? 0)} in / ${s(d.tokensOut ?? 0)} out tokens)`
        : "";
    return `Spent ${usd(d.usd)} on inference${tokens}${n > 1 ? ` over ${n} calls` : ""}`;
  },
  "pr.opened": (d) => `Opened PR #${s(d.number)} in ${s(d.repo)}: ${s(d.title)}`,
  "pr.merged": (d) => `Merged PR #${s(d.number)} in ${s(d.repo)}: ${s(d.title)}`,
  "commit.pushed": (d) =>
    `Pushed ${s(d.sha).slice(0, 7)} to ${s(d.repo)}: ${s(d.message).split("\n")[0]}`,
  "tweet.posted": (d) => `Posted: ${s(d.text).slice(0, 140)}`,
  // Same chain on both ends: USDC arriving on Arbitrum from an address there, not a bridge.
  "bridge.completed": (d) =>
    d.fromChain && d.fromChain === d.toChain
      ? `Received ${s(d.amount)} ${s(d.asset)} on ${s(d.toChain)} from ${short(d.from)}`
      : `Bridged ${s(d.amount)} ${s(d.asset)} from ${s(d.fromChain)} to ${s(d.toChain)}`,
  "trade.open": (d) =>
    d.size
      ? `Opened a ${s(d.side)} of ${s(d.size)} ${s(d.market)} at ${s(d.price)}`
      : `Opened a position on ${s(d.market)}`,
  "trade.close": (d) =>
    d.realizedPnl !== undefined
      ? `Closed a ${s(d.side)} on ${s(d.market)} at ${s(d.price)}, realized ${usd(d.realizedPnl)}`
      : `Closed a position on ${s(d.market)}`,
  "trade.fill": (d) =>
    d.size
      ? `Filled: ${s(d.side)} ${s(d.size)} ${s(d.market)} at ${s(d.price)}`
      : `Order filled on ${s(d.market)}`,
  "trade.liquidation": (d) => `Position liquidated on ${s(d.market)}`,
  "trade.liquidated": (d) =>
    `Perps account liquidated (${s(d.market)}), account value ${usd(d.accountValue)}`,
  "perps.deposit": (d) => `Deposited ${usd(d.usdc)} USDC to the perps account`,
  "perps.withdraw": (d) => `Withdrew ${usd(d.usdc)} USDC from the perps account`,
  "perps.transfer.in": (d) =>
    `Moved ${usd(d.usdc)} USDC into the perps account from ${otherEnd(d)}`,
  "perps.transfer.out": (d) =>
    `Moved ${usd(d.usdc)} USDC out of the perps account to ${otherEnd(d)}`,
  "perps.deposit.sent": (d) => `Sent ${s(d.amount)} USDC on Arbitrum to the perps bridge`,
  "safe.tx.proposed": (d) =>
    `Safe transaction ${short(d.safeTxHash)} proposed (nonce ${s(d.nonce)})`,
  "safe.tx.confirmed": (d) => `${short(d.owner)} confirmed Safe transaction ${short(d.safeTxHash)}`,
  "trade.buy": (d) =>
    `${short(d.account)} bought ${units(d.tokenAmount)} tokens for ${units(d.bnbAmount)} BNB on the ${s(d.venue)}`,
  "trade.sell": (d) =>
    `${short(d.account)} sold ${units(d.tokenAmount)} tokens for ${units(d.bnbAmount)} BNB on the ${s(d.venue)}`,
  "launch.created": (d) => `Token ${s(d.symbol)} created on the launchpad`,
  "launch.graduated": (d) => `Token ${s(d.symbol)} graduated to the DEX`,
  "launch.report": (d) =>
    `Launch report: ${s(d.buyers)} other wallets bought ${pct(d.shareBps)} of the supply in the first ${s(d.windowBlocks)} blocks; ${s(d.bundles)} bundles of freshly funded wallets took ${pct(d.bundledShareBps)}`,
  "identity.registered": (d) => `ERC-8004 identity #${s(d.identityId)} linked to the token`,
  "identity.uri_updated": (d) => `Agent card moved to ${s(d.uri)}`,
  "identity.metadata_set": (d) => `Identity metadata ${s(d.key)} updated`,
  "identity.transferred": (d) => `Identity transferred to ${short(d.owner)}`,
  "safe.tx.executed": (d) => `Treasury executed Safe transaction ${short(d.safeTxHash)}`,
  "safe.tx.failed": (d) => `Treasury Safe transaction ${short(d.safeTxHash)} failed`,
  "wallet.token_in": (d) =>
    `${d.role === "treasury" ? "Treasury" : "Wallet"} received ${units(d.amount)} of ${short(d.token)} from ${short(d.counterparty)}`,
  "wallet.token_out": (d) =>
    `${d.role === "treasury" ? "Treasury" : "Wallet"} sent ${units(d.amount)} of ${short(d.token)} to ${short(d.counterparty)}`,
  "wallet.bnb_in": (d) => `Treasury received ${units(d.amount)} BNB from ${short(d.counterparty)}`,
  "wallet.bnb_out": (d) => `Treasury sent ${units(d.amount)} BNB to ${short(d.counterparty)}`,
  "tax.income": (d) =>
    `${d.role === "treasury" ? "Treasury" : "Wallet"} earned ${units(d.amount)} BNB of tax from ${short(d.token)}`,
};

/** The types with a template of their own (tests check every catalog type is covered). */
export const RENDERED_TYPES = Object.keys(TEMPLATES);

/**
 * The feed line of an event.
 *
 * @example
 * renderEvent("pr.merged", { repo: "a/b", number: 7, title: "Fix" }); // "Merged PR #7 in a/b: Fix"
 */
export function renderEvent(eventType: string, data: Data): string {
  const template = TEMPLATES[eventType];
  if (template) {
    try {
      return template(data ?? {});
    } catch {}
  }
  const summary = typeof data?.summary === "string" ? `: ${data.summary.slice(0, 200)}` : "";
  return `${eventType.replaceAll(/[._]/g, " ")}${summary}`;
}
