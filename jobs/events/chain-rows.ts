import type { Sql } from "../../lib/db/client.ts";
import { CHAIN_TYPES, type ChainEventType } from "../../lib/events/catalog.ts";
import type { NewAgentEvent } from "../../lib/events/store.ts";
import { LAUNCH_REPORT } from "../../lib/limits.ts";
import { readLaunchReport } from "../../lib/market/launch-report.ts";

/** The source of every chain-derived event (docs/events.md). */
export const CHAIN_SOURCE = "evm-indexer:bsc";

/** An agent the projector follows, and the block above which it re-reads the index. */
export type ProjectedAgent = { agentId: string; token: string; fromBlock: bigint };

type Raw = {
  agent_id: string;
  type: ChainEventType;
  sid: string;
  block: string;
  ts: string;
  data: Record<string, unknown>;
};

const WALLET_KIND: Record<string, ChainEventType> = {
  safe_execution_success: "safe.tx.executed",
  safe_execution_failure: "safe.tx.failed",
  token_in: "wallet.token_in",
  token_out: "wallet.token_out",
  tax_income: "tax.income",
  bnb_in: "wallet.bnb_in",
  bnb_out: "wallet.bnb_out",
};
const IDENTITY_KIND: Record<string, ChainEventType> = {
  linked: "identity.registered",
  uri: "identity.uri_updated",
  metadata: "identity.metadata_set",
  owner: "identity.transferred",
};

/**
 * Every chain event the index holds now for `agents` above each one's `fromBlock`, as feed
 * rows: trades of its token, its creation and graduation, its ERC-8004 identity's link and
 * changes, and the activity of its wallet and treasury (Safe executions, ERC-20 moves, tax).
 * sourceEventId is `${chainId}:${txHash}:${logIndex}` (plus `:in`/`:out` for a transfer that
 * is both), as the indexer keys them.
 */
export async function readChainEvents(
  sql: Sql,
  schema: string,
  chainId: number,
  agents: ProjectedAgent[],
  head: bigint,
): Promise<NewAgentEvent[]> {
  if (agents.length === 0) return [];
  const v = (name: string) => sql`${sql(schema)}.${sql(name)}`;
  const ag = sql`(select * from jsonb_to_recordset(${sql.json(
    agents.map((a) => ({
      agent_id: a.agentId,
      token: a.token,
      from_block: a.fromBlock.toString(),
    })) as never,
  )}) as x(agent_id text, token text, from_block numeric)) ag`;
  const rows = await sql<Raw[]>`
    select ag.agent_id, case when t.side::text = 'buy' then 'trade.buy' else 'trade.sell' end as type,
      t.id as sid, t.block_number::text as block, t.timestamp::text as ts,
      jsonb_build_object('token', t.token, 'venue', t.venue::text, 'account', t.account,
        'tokenAmount', t.token_amount::text, 'bnbAmount', t.bnb_amount::text, 'fee', t.fee::text,
        'price', t.price::text, 'txHash', t.tx_hash, 'blockNumber', t.block_number::text) as data
    from ${ag} join ${v("trade")} t on t.token = ag.token and t.block_number > ag.from_block
    union all
    select ag.agent_id, 'launch.created', ${`${chainId}:`} || k.created_tx || ':' || k.created_log_index,
      k.created_block::text, k.created_at::text,
      jsonb_build_object('token', k.address, 'name', k.name, 'symbol', k.symbol, 'creator', k.creator,
        'treasury', k.treasury, 'txHash', k.created_tx, 'blockNumber', k.created_block::text)
    from ${ag} join ${v("token")} k on k.address = ag.token
    where k.created_block > ag.from_block and k.created_log_index is not null
    union all
    select ag.agent_id, 'launch.graduated', ${`${chainId}:`} || k.graduated_tx || ':' || k.graduated_log_index,
      k.graduated_block::text, k.graduated_at::text,
      jsonb_build_object('token', k.address, 'symbol', k.symbol, 'txHash', k.graduated_tx,
        'blockNumber', k.graduated_block::text)
    from ${ag} join ${v("token")} k on k.address = ag.token
    where k.graduated_block > ag.from_block and k.graduated_log_index is not null
    union all
    select ag.agent_id, c.kind, c.id, c.block_number::text, c.timestamp::text,
      jsonb_build_object('identityId', c.agent_id::text, 'key', c.key, 'value', c.value,
        'uri', case when c.kind = 'uri' then c.value end, 'owner', case when c.kind = 'owner' then c.value end,
        'txHash', c.tx_hash, 'blockNumber', c.block_number::text)
    from ${ag} join ${v("token")} k on k.address = ag.token
      join ${v("identity_change")} c on c.agent_id = k.agent_id and c.block_number > ag.from_block
    union all
    select ag.agent_id, w.kind, w.id, w.block_number::text, w.timestamp::text,
      jsonb_build_object('wallet', w.wallet, 'role', w.role, 'token', w.token,
        'counterparty', w.counterparty, 'amount', w.amount::text, 'safeTxHash', w.safe_tx_hash,
        'txHash', w.tx_hash, 'blockNumber', w.block_number::text)
    from ${ag} join ${v("token")} k on k.address = ag.token
      join ${v("wallet_activity")} w on w.agent_id = k.agent_id and w.block_number > ag.from_block`;
  const out: NewAgentEvent[] = [];
  for (const r of [...rows, ...(await readLaunchReports(sql, schema, chainId, agents, head))]) {
    const type = (IDENTITY_KIND[r.type] ?? WALLET_KIND[r.type] ?? r.type) as ChainEventType;
    if (!(type in CHAIN_TYPES)) continue;
    out.push({
      agentId: r.agent_id,
      eventType: type,
      category: CHAIN_TYPES[type],
      source: CHAIN_SOURCE,
      sourceEventId: r.sid,
      occurredAt: new Date(Number(r.ts) * 1000),
      data: stripNulls(r.data),
      // A Safe transaction's propose, confirmations, co-signature and execution group together.
      correlationId:
        type.startsWith("safe.tx.") && typeof r.data.safeTxHash === "string"
          ? r.data.safeTxHash.toLowerCase()
          : null,
      chainId,
      blockNumber: BigInt(r.block),
    });
  }
  return out;
}

/**
 * `launch.report` of each agent token whose launch window closed above its `fromBlock` and at
 * or below `head`: the report's figures once final (lib/market/launch-report.ts), at the window's
 * last block. Its time is the launch's (the creation block's): the report describes the launch.
 */
async function readLaunchReports(
  sql: Sql,
  schema: string,
  chainId: number,
  agents: ProjectedAgent[],
  head: bigint,
): Promise<Raw[]> {
  const window = BigInt(LAUNCH_REPORT.windowBlocks);
  const tokens = await sql<{ address: string; created_block: string; created_at: string }[]>`
    select address, created_block::text, created_at::text from ${sql(schema)}.${sql("token")}
    where address in ${sql(agents.map((a) => a.token))} and origin = 'registry'
      and created_block is not null`;
  const created = new Map(tokens.map((t) => [t.address, t]));
  const due = agents.flatMap((a) => {
    const t = created.get(a.token);
    const end = t ? BigInt(t.created_block) + window : null;
    return t && end !== null && end > a.fromBlock && end <= head
      ? [{ agent_id: a.agentId, token: a.token, created_at: t.created_at }]
      : [];
  });
  const out: Raw[] = [];
  for (const d of due) {
    const r = await readLaunchReport({ sql, schema, token: d.token, indexedBlock: head });
    if (!r) continue;
    out.push({
      agent_id: d.agent_id,
      type: "launch.report",
      sid: `${chainId}:${r.createdTx}:launch-report`,
      block: r.windowEndBlock,
      ts: d.created_at,
      data: {
        token: r.token,
        windowBlocks: r.windowBlocks,
        windowEndBlock: r.windowEndBlock,
        antiSniper: r.antiSniper,
        creatorTokenAmount: r.creatorBuy?.tokenAmount ?? "0",
        buyers: r.totals.buyers,
        tokenAmount: r.totals.tokenAmount,
        shareBps: r.totals.shareBps,
        bundles: r.bundles.length,
        bundledWallets: r.totals.bundledWallets,
        bundledShareBps: r.totals.bundledShareBps,
        txHash: r.createdTx,
        blockNumber: r.windowEndBlock,
      },
    });
  }
  return out;
}

function stripNulls(d: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(d).filter(([, v]) => v !== null));
}
