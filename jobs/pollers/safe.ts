import { setTimeout as sleep } from "node:timers/promises";
import type { Sql } from "../../lib/db/client.ts";
import { insertAgentEvents, type NewAgentEvent } from "../../lib/events/store.ts";
import type { Logger } from "../../lib/logger.ts";
import { rateLimited, trySpend, type WeightBudget } from "../../lib/pollers/budget.ts";
import {
  type PollKey,
  readCursor,
  recordDeferral,
  recordFailure,
  recordSuccess,
} from "../../lib/pollers/state.ts";
import { POLLER_VENUE } from "../../lib/pollers/status.ts";
import { UpstreamError } from "../../services/http.ts";
import type { SafeTxServiceClient } from "../../services/safe-tx-service/client.ts";
import type { MultisigTransaction } from "../../services/safe-tx-service/protocol.ts";
import { POLLER_LIMITS } from "../limits.ts";

/** Source of the events the Safe poller writes. */
export const SAFE_SOURCE = "safe-poller";
const L = POLLER_LIMITS.safe;
/** Changes are asked for again this far before the cursor: a late `modified` is still seen. */
const OVERLAP_MS = 5 * 60_000;

export type SafePollContext = {
  sql: Sql;
  safe: SafeTxServiceClient;
  log: Logger;
  /**
   * The service's per-second budget, shared by every worker (lib/pollers/budget.ts): each
   * request waits for its turn in it, and a poll that does not get one within `maxTurnWaitMs`
   * is deferred, not sent. Unset: no budget (tests of one poll).
   */
  pacing?: { budget: WeightBudget; maxTurnWaitMs: number; backoffMs: number; maxBackoffMs: number };
  /** Test only: runs inside the commit, after the events are written. */
  beforeCommit?: () => void;
};

class Deferred extends Error {}

/**
 * Takes one request from the budget, waiting for the window to free one (a round's polls run
 * together; the budget spreads their requests over the round), or throws `Deferred`.
 */
async function takeTurn(c: SafePollContext): Promise<void> {
  const p = c.pacing;
  if (!p) return;
  const step = Math.ceil(p.budget.windowMs / p.budget.limit);
  const until = Date.now() + p.maxTurnWaitMs;
  for (;;) {
    const last = Date.now() + step > until;
    const r = await trySpend(c.sql, p.budget, 1, { optional: !last });
    if (r.ok) return;
    if (last || r.why === "backoff") throw new Deferred();
    await sleep(step);
  }
}

/**
 * The feed events of multisig transactions: `safe.tx.proposed` once per transaction and
 * `safe.tx.confirmed` once per owner's confirmation, correlated by the safeTxHash (as are the
 * steward's `safe.tx.signed_by_steward` and the chain's `safe.tx.executed`). The execution
 * itself comes from the chain (source `evm-indexer:bsc`), never from here.
 *
 * @example
 * const events = safeEvents(agentId, page.results);
 */
export function safeEvents(agentId: string, txs: readonly MultisigTransaction[]): NewAgentEvent[] {
  const out: NewAgentEvent[] = [];
  for (const t of txs) {
    const hash = t.safeTxHash.toLowerCase();
    const base = {
      agentId,
      category: "treasury" as const,
      source: SAFE_SOURCE,
      correlationId: hash,
    };
    const common = { safe: t.safe, safeTxHash: hash, nonce: t.nonce, to: t.to, value: t.value };
    out.push({
      ...base,
      eventType: "safe.tx.proposed",
      sourceEventId: `proposed:${hash}`,
      occurredAt: new Date(t.submissionDate),
      data: {
        ...common,
        proposer: t.proposer ?? null,
        confirmationsRequired: t.confirmationsRequired,
        operation: t.operation,
      },
    });
    for (const c of t.confirmations) {
      out.push({
        ...base,
        eventType: "safe.tx.confirmed",
        sourceEventId: `confirmed:${hash}:${c.owner.toLowerCase()}`,
        occurredAt: new Date(c.submissionDate),
        data: {
          ...common,
          owner: c.owner,
          confirmations: t.confirmations.length,
          confirmationsRequired: t.confirmationsRequired,
        },
      });
    }
  }
  return out;
}

/**
 * One poll of an agent's treasury Safe: every transaction modified since the cursor (minus an
 * overlap), all pages, into events and the new cursor in one transaction.
 */
export async function pollSafeAgent(c: SafePollContext, agentId: string): Promise<void> {
  const [a] = await c.sql<{ treasury_address: string | null }[]>`
    select treasury_address from app.agents where agent_id = ${agentId}`;
  if (!a?.treasury_address) return;
  const key: PollKey = { poller: "safe", agentId, target: a.treasury_address };
  const { cursor } = await readCursor(c.sql, key);
  const since = typeof cursor.modified === "number" ? Math.max(0, cursor.modified - OVERLAP_MS) : 0;
  try {
    const txs: MultisigTransaction[] = [];
    for (let i = 0; i < L.maxPages; i++) {
      const page = await c.safe.multisigTransactions(a.treasury_address, {
        modifiedGte: new Date(since),
        limit: L.pageSize,
        offset: i * L.pageSize,
        beforeSend: () => takeTurn(c),
      });
      txs.push(...page.results);
      if (!page.next) break;
    }
    const newest = txs.length ? Math.max(...txs.map((t) => Date.parse(t.modified))) : null;
    await c.sql.begin(async (t) => {
      const tx = t as unknown as Sql;
      await insertAgentEvents({ sql: tx, events: safeEvents(agentId, txs) });
      await recordSuccess(tx, key, { modified: newest });
      c.beforeCommit?.();
    });
  } catch (error) {
    if (error instanceof Deferred) {
      await recordDeferral(c.sql, key);
      return;
    }
    // A 429 despite the budget (another client on the key): every worker's polls stop a while.
    if (c.pacing && error instanceof UpstreamError && error.status === 429) {
      await rateLimited(c.sql, c.pacing.budget, {
        backoffMs: c.pacing.backoffMs,
        maxMs: c.pacing.maxBackoffMs,
      });
    }
    await recordFailure(c.sql, key, error);
    c.log.warn({ err: error, agentId }, "safe poll failed");
  }
}

/**
 * The Safe poller's budget: `requestsPerSecond` as one request per 1/N s, shared by every worker
 * (venue `safe-tx-service`, lib/pollers/budget.ts).
 */
export function safeBudget(venue: string = POLLER_VENUE.safe): WeightBudget {
  return { venue, limit: 1, windowMs: Math.ceil(1_000 / L.requestsPerSecond) };
}
