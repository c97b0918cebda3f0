import type { Sql } from "../../lib/db/client.ts";
import { readCheckpoints } from "../../lib/indexer/status.ts";
import { EVENT_JOB_LIMITS } from "../limits.ts";
import { CHAIN_SOURCE, type ProjectedAgent, readChainEvents } from "./chain-rows.ts";
import { readPosition, reconcileWindow, windowStart, writePosition } from "./reconcile.ts";

export type ProjectResult = {
  inserted: number;
  updated: number;
  deleted: number;
  head: bigint | null;
};

/**
 * One pass of the chain projector: copies what the index holds into `app.agent_events` and
 * corrects what a reorg changed. Everything above (the last pass's head minus the reorg
 * window) is read again from the views and compared with the feed's chain rows: rows the index
 * no longer holds are deleted, changed ones rewritten, new ones inserted, all in one
 * transaction with the projector's new position. An agent seen for the first time (or whose
 * token changed) is projected from its whole history, and only its row is written: a pass
 * writes one position, not one row per agent. Only the indexer decides what is on-chain: this
 * pass never reads the chain itself.
 */
export async function projectChainEvents(
  sql: Sql,
  p: { schema: string; windowBlocks?: number },
): Promise<ProjectResult> {
  const checkpoints = await readCheckpoints(sql, p.schema);
  const chain = checkpoints?.chains[0];
  if (!checkpoints?.ready || !chain) return { inserted: 0, updated: 0, deleted: 0, head: null };
  const head = chain.block;
  const window = BigInt(p.windowBlocks ?? EVENT_JOB_LIMITS.reorgWindowBlocks.bsc);
  return sql.begin(async (raw) => {
    const tx = raw as unknown as Sql;
    // One projector at a time (several workers may run it): the others skip this pass.
    const [lock] = await tx`select pg_try_advisory_xact_lock(7400011) as ok`;
    if (!lock?.ok) return { inserted: 0, updated: 0, deleted: 0, head };
    // Before the first position is written, each agent's own row says how far it was projected.
    const position = await readPosition(tx, CHAIN_SOURCE);
    const fresh = new Set<string>();
    const agents = (
      await tx<
        { agent_id: string; token: string; projected_to: string | null; known: string | null }[]
      >`
        select a.agent_id, a.token_address as token, p.projected_to::text, p.token_address as known
        from app.agents a left join app.chain_projection p using (agent_id)
        where a.token_address is not null`
    ).map((a): ProjectedAgent => {
      const reset = a.known !== a.token;
      if (reset) fresh.add(a.agent_id);
      return {
        agentId: a.agent_id,
        token: a.token,
        fromBlock: windowStart({ projectedTo: position ?? a.projected_to, reset, head, window }),
      };
    });
    const want = await readChainEvents(tx, p.schema, chain.chainId, agents, head);
    const done = await reconcileWindow(tx, { source: CHAIN_SOURCE, targets: agents }, want);
    const followed = agents.filter((a) => fresh.has(a.agentId));
    if (followed.length > 0) {
      await tx`
        insert into app.chain_projection (agent_id, token_address, projected_to)
        select agent_id, token, ${head.toString()}::bigint
        from jsonb_to_recordset(${tx.json(followed.map((a) => ({ agent_id: a.agentId, token: a.token })) as never)})
          as x(agent_id text, token text)
        on conflict (agent_id) do update set token_address = excluded.token_address,
          projected_to = excluded.projected_to, updated_at = now()`;
    }
    await writePosition(tx, CHAIN_SOURCE, head);
    return { ...done, head };
  });
}
