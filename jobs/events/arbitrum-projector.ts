import { formatUnits } from "viem";
import { ARBITRUM_CHAIN_ID, ARBITRUM_SOURCE } from "../../lib/arbitrum.ts";
import type { Sql } from "../../lib/db/client.ts";
import { categoryOf } from "../../lib/events/catalog.ts";
import type { NewAgentEvent } from "../../lib/events/store.ts";
import { readCheckpoints } from "../../lib/indexer/status.ts";
import { EVENT_JOB_LIMITS } from "../limits.ts";
import type { ProjectResult } from "./projector.ts";
import { readPosition, reconcileWindow, windowStart, writePosition } from "./reconcile.ts";

const USDC_DECIMALS = 6;

type Target = { agentId: string; wallets: string[]; fromBlock: bigint };

/** An indexed USDC transfer into (`in`) or out of (`out`) one of an agent's wallets. */
type UsdcMove = {
  agent_id: string;
  dir: "in" | "out";
  id: string;
  wallet: string;
  counterparty: string;
  amount: string;
  block: string;
  ts: string;
  tx_hash: string;
};

/**
 * One pass of the Arbitrum projector: the indexed USDC transfers into and out of each agent's
 * perps deposit addresses as `bridge.completed` (USDC arriving) and `perps.deposit.sent` (USDC
 * sent to the venue's bridge), source `evm-indexer:arbitrum`. A deposit address is the agent's
 * own wallet (`app.agents.wallet_address`, the steward wallet its launch made: the same EOA on
 * both chains) and every wallet it registered with role `perps` (what the perps poller polls:
 * Hyperliquid credits the Arbitrum sender). Reorg-safe like the BSC projector: above (the last pass's head
 * − the window) the feed is compared with the index and corrected, in one transaction with
 * the projector's position; an agent's own row is written only when its addresses change.
 * Nothing happens while the index holds no Arbitrum chain.
 */
export async function projectArbitrumEvents(
  sql: Sql,
  p: { schema: string; bridge: string; windowBlocks?: number },
): Promise<ProjectResult> {
  const none = { inserted: 0, updated: 0, deleted: 0, head: null };
  const checkpoints = await readCheckpoints(sql, p.schema);
  const chain = checkpoints?.chains.find((c) => c.chainId === ARBITRUM_CHAIN_ID);
  if (!checkpoints?.ready || !chain) return none;
  const head = chain.block;
  const window = BigInt(p.windowBlocks ?? EVENT_JOB_LIMITS.reorgWindowBlocks.arbitrum);
  const bridge = p.bridge.toLowerCase();
  const v = (name: string) => sql`${sql(p.schema)}.${sql(name)}`;
  return sql.begin(async (raw) => {
    const tx = raw as unknown as Sql;
    const [lock] = await tx`select pg_try_advisory_xact_lock(7400019) as ok`;
    if (!lock?.ok) return { ...none, head };
    const position = await readPosition(tx, ARBITRUM_SOURCE);
    const rows = await tx<
      { agent_id: string; wallets: string[]; known: string | null; projected_to: string | null }[]
    >`
      with w as (
        select agent_id, lower(address) as wallet from app.agent_wallets where role = 'perps'
        union
        select agent_id, lower(wallet_address) from app.agents where wallet_address is not null
      )
      select w.agent_id, array_agg(distinct w.wallet order by w.wallet) as wallets,
        p.wallets as known, p.projected_to::text
      from w left join app.arbitrum_projection p using (agent_id)
      group by w.agent_id, p.wallets, p.projected_to`;
    const fresh = new Set<string>();
    const targets: Target[] = rows.map((r) => {
      const reset = r.known !== r.wallets.join(",");
      if (reset) fresh.add(r.agent_id);
      return {
        agentId: r.agent_id,
        wallets: r.wallets,
        fromBlock: windowStart({ projectedTo: position ?? r.projected_to, reset, head, window }),
      };
    });
    if (targets.length === 0) return { ...none, head };
    const flat = targets.flatMap((t) =>
      t.wallets.map((wallet) => ({
        agent_id: t.agentId,
        wallet,
        from_block: t.fromBlock.toString(),
      })),
    );
    const ag = tx`(select * from jsonb_to_recordset(${tx.json(flat as never)})
      as x(agent_id text, wallet text, from_block numeric)) ag`;
    const moves = await tx<UsdcMove[]>`
      select ag.agent_id, 'in' as dir, t.id, ag.wallet, t."from" as counterparty,
        t.amount::text, t.block_number::text as block, t.timestamp::text as ts, t.tx_hash
      from ${ag} join ${v("usdc_transfer")} t on t."to" = ag.wallet and t.block_number > ag.from_block
      union all
      select ag.agent_id, 'out', t.id, ag.wallet, t."to", t.amount::text, t.block_number::text,
        t.timestamp::text, t.tx_hash
      from ${ag} join ${v("usdc_transfer")} t on t."from" = ag.wallet and t.block_number > ag.from_block
      where t."to" = ${bridge}`;
    const want = moves.map((m) => toEvent(m, bridge));
    const done = await reconcileWindow(tx, { source: ARBITRUM_SOURCE, targets }, want);
    // Only the agents whose addresses are new or changed: the rest share the position.
    const followed = targets.filter((t) => fresh.has(t.agentId));
    if (followed.length > 0)
      await tx`
        insert into app.arbitrum_projection (agent_id, wallets, projected_to)
        select agent_id, wallets, ${head.toString()}::bigint
        from jsonb_to_recordset(${tx.json(followed.map((t) => ({ agent_id: t.agentId, wallets: t.wallets.join(",") })) as never)})
          as x(agent_id text, wallets text)
        on conflict (agent_id) do update set wallets = excluded.wallets,
          projected_to = excluded.projected_to, updated_at = now()`;
    await writePosition(tx, ARBITRUM_SOURCE, head);
    return { ...done, head };
  });
}

function toEvent(m: UsdcMove, bridge: string): NewAgentEvent {
  const amount = formatUnits(BigInt(m.amount), USDC_DECIMALS);
  const common = {
    asset: "USDC",
    amount,
    amountRaw: m.amount,
    wallet: m.wallet,
    txHash: m.tx_hash,
    blockNumber: m.block,
  };
  const eventType = m.dir === "in" ? "bridge.completed" : "perps.deposit.sent";
  return {
    agentId: m.agent_id,
    eventType,
    category: categoryOf(eventType),
    source: ARBITRUM_SOURCE,
    // The indexer's log id; `:in`/`:out` as for BSC wallet moves (a move between two watched
    // addresses is both).
    sourceEventId: `${m.id}:${m.dir}`,
    occurredAt: new Date(Number(m.ts) * 1000),
    data:
      m.dir === "in"
        ? {
            ...common,
            // USDC coming back from the venue's bridge is a perps withdrawal landing.
            fromChain: m.counterparty === bridge ? "hyperliquid" : "arbitrum",
            toChain: "arbitrum",
            from: m.counterparty,
          }
        : { ...common, to: m.counterparty },
    chainId: ARBITRUM_CHAIN_ID,
    blockNumber: BigInt(m.block),
  };
}
