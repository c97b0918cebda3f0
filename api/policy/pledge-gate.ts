import { type Address, erc20Abi, type Hex } from "viem";
import type { Sql } from "../../lib/db/client.ts";
import { insertAgentEvents } from "../../lib/events/store.ts";
import type { Decision } from "../../lib/policy/decide.ts";
import { disposedAmount, judgeSell, pledgeInForce, utcDayStart } from "../../lib/policy/pledge.ts";
import { pledgeVersions, soldSince } from "../../lib/policy/pledge-store.ts";
import type { SpotChain } from "../../lib/policy/snapshot.ts";
import { HttpError } from "../errors.ts";

/** The agent behind an order's wallet: its own token and when it launched. */
export type PledgedWallet = {
  agentId: string;
  address: Address;
  token: string | null;
  launchedAt: Date | null;
};

export type PledgeGateParameters = {
  sql: Sql;
  spot?: SpotChain & { platform: Hex[] };
  wallet: PledgedWallet;
  tx: { to: Hex; value: bigint; data?: Hex };
  /** The chain's allowed decision: the refusal takes its call id and version. */
  decision: Decision;
  now: Date;
};
/** A disposal the pledge let through: counted before it is signed, uncounted if it is not. */
export type PledgeGateReturnType = {
  release: () => Promise<void>;
  settle: (txHash: Hex) => Promise<void>;
} | null;

/**
 * The sell pledge at the signer: a transaction that disposes of the agent's own token (a DEX or
 * curve sale, a transfer) is judged by the pledge in force. Over it, the call is refused as
 * `policy_denied` (`sellPledge`), reported as `policy.denied` and stored as an anomaly on the
 * panel, with nothing signed. Within it, the amount is counted against today before the signer
 * is asked (a crash then over-counts, never under-counts), and `release` takes it back if the
 * signer does not sign. Runs under the wallet's order lock.
 *
 * @example
 * const held = await pledgeGate({ sql, spot, wallet, tx, decision, now });
 */
export async function pledgeGate(p: PledgeGateParameters): Promise<PledgeGateReturnType> {
  const { wallet: w } = p;
  if (!w.token || !p.spot) return null;
  const token = w.token.toLowerCase();
  const amount = disposedAmount(p.tx, {
    token,
    router: p.spot.router.toLowerCase(),
    platform: p.spot.platform.map((a) => a.toLowerCase()),
  });
  if (amount === 0n) return null;
  const pledge = pledgeInForce(await pledgeVersions(p.sql, w.agentId), p.now);
  if (!pledge) return null;
  const [balance, soldToday] = await Promise.all([
    p.spot.client.readContract({
      address: token as Address,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [w.address],
    }),
    soldSince(p.sql, w.agentId, utcDayStart(p.now)),
  ]);
  const verdict = judgeSell({
    pledge,
    now: p.now,
    launchedAt: w.launchedAt,
    balance,
    soldToday,
    amount,
  });
  const callId = p.decision.callId;
  if (!verdict.ok) {
    await refuse(p, pledge.id, verdict);
    throw new HttpError("policy_denied", {
      message: `${verdict.reason} (sell pledge ${pledge.id})`,
      details: [{ path: "sellPledge", message: verdict.reason }],
      reason: verdict.code,
    });
  }
  await p.sql`insert into app.pledge_sells (agent_id, at, amount, call_id)
    values (${w.agentId}, ${p.now}, ${amount.toString()}, ${callId})`;
  return {
    release: async () => {
      await p.sql`delete from app.pledge_sells where call_id = ${callId}`;
    },
    settle: async (txHash) => {
      await p.sql`update app.pledge_sells set tx_hash = ${txHash} where call_id = ${callId}`;
    },
  };
}

/**
 * The refusal, in one transaction: the public `policy.denied` event (source `policy`, the call's
 * id: the inbox copy of a decision would store nothing more), the anomaly naming it, and the
 * anomaly's internal `policy.anomaly` event, as the auditor writes its findings.
 */
async function refuse(
  p: PledgeGateParameters,
  pledgeId: string,
  v: { code: string; reason: string; expected: string; actual: string },
) {
  const d = p.decision;
  const at = new Date(String(d.data.at));
  await p.sql.begin(async (tx) => {
    const t = tx as unknown as Sql;
    const [denied] = await insertAgentEvents({
      sql: t,
      events: [
        {
          agentId: p.wallet.agentId,
          eventType: "policy.denied",
          category: "system",
          source: "policy",
          sourceEventId: d.callId,
          occurredAt: at,
          data: { ...d.data, evaluator: "sellPledge", code: v.code, reason: v.reason, pledgeId },
        },
      ],
    });
    const [anomaly] = await t<{ id: string; detected_at: Date }[]>`insert into app.policy_anomalies
        (agent_id, event_id, source_event_id, rule, expected, actual, severity, policy_id,
         policy_version, dedup_key)
      values (${p.wallet.agentId}, ${denied ? denied.id.toString() : null}, ${d.callId},
        'sellPledge', ${v.expected.slice(0, 500)}, ${v.actual.slice(0, 500)}, 'high',
        ${`pledge:${pledgeId}`}, null, ${`pledge:${d.callId}`})
      on conflict (dedup_key) do nothing returning id::text, detected_at`;
    if (!anomaly) return;
    await insertAgentEvents({
      sql: t,
      events: [
        {
          agentId: p.wallet.agentId,
          eventType: "policy.anomaly",
          category: "system",
          source: "policy-auditor",
          sourceEventId: `anomaly:${anomaly.id}`,
          occurredAt: anomaly.detected_at,
          visibility: "internal",
          data: {
            anomalyId: anomaly.id,
            rule: "sellPledge",
            expected: v.expected,
            actual: v.actual,
            severity: "high",
            policyId: `pledge:${pledgeId}`,
            eventId: denied ? denied.id.toString() : null,
            code: v.code,
          },
        },
      ],
    });
  });
}
