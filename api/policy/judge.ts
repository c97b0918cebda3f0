import type { Address, Hex } from "viem";
import type { Sql } from "../../lib/db/client.ts";
import { type Decision, decide, ledgerEntry } from "../../lib/policy/decide.ts";
import { reportDecision } from "../../lib/policy/events.ts";
import type { Intent } from "../../lib/policy/intent.ts";
import type { PolicyVersion } from "../../lib/policy/model.ts";
import { decodePerpsAction, type PerpsAction } from "../../lib/policy/perps.ts";
import { type PerpsVenue, type SpotChain, venueState } from "../../lib/policy/snapshot.ts";
import { decodeBscTransaction } from "../../lib/policy/spot.ts";
import { activePolicy, ledger, leverages, recordTrade } from "../../lib/policy/store.ts";
import { stewardChainRefusal, stewardRefusal } from "../../services/steward/client.ts";
import { HttpError } from "../errors.ts";
import { bnbPriceIntent, unknownVenueOrder } from "./intents.ts";
import { type PledgeGateReturnType, pledgeGate } from "./pledge-gate.ts";

/** What the service's evaluator chain reads: its store, the clock, the chain, the venue. */
export type JudgeDeps = {
  sql: Sql;
  now?: () => Date;
  /** The BSC chain, its DEX and BNB/USD feed, and the platform's own contracts. */
  spot?: SpotChain & { platform: Hex[] };
  perps?: PerpsVenue;
  /** Tests: called after the active version was read, before the wallet's lock. */
  afterPolicyRead?: (walletId: string) => Promise<void>;
};
export type OrderWallet = {
  agentId: string;
  walletId: string;
  address: Address;
  /** The agent's own token (its sell pledge binds sales of it) and its launch time. */
  token: string | null;
  launchedAt: Date | null;
};

/**
 * Runs `fn` with the wallet's orders one at a time across every API process (a session-level
 * advisory lock on a reserved connection), so two orders cannot both spend the last of a budget.
 */
async function oneAtATime<T>(sql: Sql, walletId: string, fn: () => Promise<T>): Promise<T> {
  const conn = await sql.reserve();
  try {
    await conn`select pg_advisory_lock(hashtextextended(${`orders:${walletId}`}, 0))`;
    try {
      return await fn();
    } finally {
      await conn`select pg_advisory_unlock(hashtextextended(${`orders:${walletId}`}, 0))`;
    }
  } finally {
    conn.release();
  }
}

const report = (
  sql: Sql,
  w: OrderWallet,
  d: Decision,
  more?: Record<string, unknown>,
  visibility?: "internal",
) => reportDecision(sql, w.agentId, d, more, visibility);

/** A refusal as the API's error: the evaluator and its code, the version that judged it. */
function refusal(d: Decision): HttpError {
  if (d.verdict.ok) throw new Error("refusal of an allowed decision");
  const v = d.verdict;
  return new HttpError(v.manual ? "policy_needs_manual" : "policy_denied", {
    message: `${v.reason} (policy ${d.policy.policyId} version ${d.policy.version})`,
    details: [{ path: v.evaluator, message: v.reason }],
    reason: v.code,
  });
}

async function begin(d: JudgeDeps, w: OrderWallet): Promise<PolicyVersion> {
  // The version current when the order arrives judges it, whatever is saved meanwhile.
  const policy = await activePolicy(d.sql, w.walletId);
  await d.afterPolicyRead?.(w.walletId);
  return policy;
}

/** One BSC transaction of an order and how the signer is asked to sign it. */
export type OrderStep<T> = { tx: { to: Hex; value: bigint; data?: Hex }; send: () => Promise<T> };

/**
 * The BSC transactions of one order (a sale's router approval, then the sale), every one decoded
 * and judged by the chain and the sell pledge before the first is signed: a refused step is
 * reported and nothing at all is signed, not even an approval the sale would have needed. Then
 * each is signed in turn by its `send` and its ledger entry kept. A disposal the pledge counted
 * is taken back for every step that was never signed.
 *
 * @example
 * const { results } = await judgeTransactions(deps, wallet, [{ tx, send: () => steward.sendTransaction(...) }]);
 */
export async function judgeTransactions<T extends { txHash: Hex }>(
  d: JudgeDeps,
  w: OrderWallet,
  steps: OrderStep<T>[],
): Promise<{ results: T[]; policy: PolicyVersion }> {
  const policy = await begin(d, w);
  return oneAtATime(d.sql, w.walletId, async () => {
    const now = d.now?.() ?? new Date();
    const book = await ledger(d.sql, w.walletId);
    const judged: { decision: Decision; held: PledgeGateReturnType }[] = [];
    const releaseFrom = async (i: number) => {
      for (const j of judged.slice(i)) await j.held?.release();
    };
    try {
      for (const { tx } of steps) {
        const decision = await decideTransaction(d, w, policy, tx, now, book);
        if (!decision.verdict.ok) {
          await report(d.sql, w, decision);
          throw refusal(decision);
        }
        const held = await pledgeGate({ sql: d.sql, spot: d.spot, wallet: w, tx, decision, now });
        judged.push({ decision, held });
      }
    } catch (error) {
      await releaseFrom(0);
      throw error;
    }
    const results: T[] = [];
    for (const [i, step] of steps.entries()) {
      const { decision, held } = judged[i] as (typeof judged)[number];
      const sent = await step.send().catch(async (error: unknown) => {
        // This step stays counted unless the signer said it signed nothing (an unanswered call
        // may have gone out); the steps after it were never asked for.
        if (stewardRefusal(error) || stewardChainRefusal(error)) await held?.release();
        await releaseFrom(i + 1);
        throw error;
      });
      await held?.settle(sent.txHash);
      await recordTrade(d.sql, w.walletId, { entry: ledgerEntry(decision, sent.txHash) });
      // Steward reports the transaction it signed as policy.applied too (tx.signed): the feed
      // shows that one; this one, with the chain's verdicts, is kept for the auditor.
      await report(d.sql, w, decision, { txHash: sent.txHash }, "internal");
      results.push(sent);
    }
    return { results, policy };
  });
}

/** One BSC transaction decoded (the BNB price read first for the router) and judged. */
async function decideTransaction(
  d: JudgeDeps,
  w: OrderWallet,
  policy: PolicyVersion,
  tx: OrderStep<unknown>["tx"],
  now: Date,
  book: Awaited<ReturnType<typeof ledger>>,
): Promise<Decision> {
  const { intent, bnbPrice } = await bnbPriceIntent(d.spot, tx, (price) =>
    decodeBscTransaction(tx, {
      wallet: w.address,
      router: d.spot?.router.toLowerCase() ?? "",
      wbnb: d.spot?.wbnb.toLowerCase() ?? "",
      platform: (d.spot?.platform ?? []).map((a) => a.toLowerCase() as Hex),
      bnbUsd: price,
    }),
  );
  return decide({
    policy,
    intent,
    now,
    wallet: w.address,
    ledger: book,
    spot: d.spot,
    perps: d.perps,
    preread: { bnbPrice },
  });
}

/**
 * A perps order's actions (leverage, then the order), every one judged before the first is
 * sent: a refused step leaves nothing at the venue, not even a changed leverage.
 *
 * @example
 * await judgeVenueActions(deps, wallet, "hyperliquid", [lev, order], (a, i) => submit(a));
 */
export async function judgeVenueActions<T>(
  d: JudgeDeps,
  w: OrderWallet,
  venue: string,
  actions: PerpsAction[],
  send: (action: PerpsAction, index: number) => Promise<T>,
): Promise<{ results: T[]; policy: PolicyVersion }> {
  const policy = await begin(d, w);
  return oneAtATime(d.sql, w.walletId, async () => {
    const now = d.now?.() ?? new Date();
    const intents = await perpsIntents(d, w, venue, actions);
    const book = await ledger(d.sql, w.walletId);
    const decisions: Decision[] = [];
    for (const intent of intents.list) {
      const decision = await decide({
        policy,
        intent,
        now,
        wallet: w.address,
        ledger: book,
        perps: d.perps,
        preread: { venue: intents.venue },
      });
      if (!decision.verdict.ok) {
        await report(d.sql, w, decision);
        throw refusal(decision);
      }
      decisions.push(decision);
    }
    const results: T[] = [];
    for (const [i, action] of actions.entries()) {
      results.push(await send(action, i));
      const decision = decisions[i] as Decision;
      const intent = decision.intent;
      await recordTrade(d.sql, w.walletId, {
        entry: ledgerEntry(decision, `${venue}:${now.getTime()}:${i}`),
        leverage: intent.kind === "leverage" ? [intent.asset, intent.leverage] : undefined,
      });
      await report(d.sql, w, decision);
    }
    return { results, policy };
  });
}

/** Each action as the chain sees it; a leverage step counts for the order after it. */
async function perpsIntents(d: JudgeDeps, w: OrderWallet, venue: string, actions: PerpsAction[]) {
  if (venue !== "hyperliquid" || !d.perps) {
    return { list: actions.map((a) => unknownVenueOrder(venue, a)), venue: undefined };
  }
  let state: Awaited<ReturnType<typeof venueState>>;
  let universe: { name: string; maxLeverage: number }[];
  try {
    const [meta, s] = await Promise.all([d.perps.meta(), venueState(d.perps, w.address)]);
    state = s;
    universe = meta.universe;
  } catch (error) {
    const unread: Intent = {
      kind: "unknown",
      manual: false,
      code: "state_unavailable",
      reason: `the venue could not be read: ${(error as Error).message.split("\n")[0]}`,
      summary: { venue },
    };
    return { list: actions.map(() => unread), venue: undefined };
  }
  const leverage = await leverages(d.sql, w.walletId);
  const list: Intent[] = [];
  for (const action of actions) {
    const intent = decodePerpsAction(action, {
      universe,
      marks: state.marks,
      positions: state.positions,
      leverage,
    });
    if (intent.kind === "leverage") leverage[intent.asset] = intent.leverage;
    list.push(intent);
  }
  return { list, venue: state };
}
