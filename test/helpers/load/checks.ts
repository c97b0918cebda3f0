import type { Sql } from "../../../lib/db/client.ts";

export type TableSizes = Record<string, { rows: number; bytes: number }>;

/** Rows inserted so far and bytes on disk (indexes and TOAST included) of every table. */
export async function tableSizes(sql: Sql): Promise<TableSizes> {
  const rows = await sql<{ name: string; ins: string; bytes: string }[]>`
    select schemaname || '.' || relname as name, n_tup_ins::text as ins,
      pg_total_relation_size(relid)::text as bytes
    from pg_stat_user_tables`;
  return Object.fromEntries(
    rows.map((r) => [r.name, { rows: Number(r.ins), bytes: Number(r.bytes) }]),
  );
}

/** What the run added per table between two readings, biggest first (the top `limit`). */
export function sizeGrowth(a: TableSizes, b: TableSizes, limit = 12) {
  const out = Object.keys(b).map((name) => ({
    table: name,
    rows: (b[name]?.rows ?? 0) - (a[name]?.rows ?? 0),
    bytes: (b[name]?.bytes ?? 0) - (a[name]?.bytes ?? 0),
  }));
  const total = out.reduce((s, t) => ({ rows: s.rows + t.rows, bytes: s.bytes + t.bytes }), {
    rows: 0,
    bytes: 0,
  });
  return { total, tables: out.sort((x, y) => y.bytes - x.bytes).slice(0, limit) };
}

export type ExactlyOnce = {
  trades: { mined: number; indexedOnce: number; missing: number; doubled: number };
  launches: { asked: number; answered: number; tokensIndexed: number };
  webhooks: {
    subscriptions: number;
    deliveries: Record<string, number>;
    received: number;
    receivedUnique: number;
    /** Deliveries that succeeded and whose webhook-id the receivers never saw. */
    notReceived: number;
  };
  ok: boolean;
  problems: string[];
};

/**
 * Every trade the harness mined is a row of the index exactly once (by transaction hash: each
 * of its trades emits one trade log), every launch asked was answered and its token indexed,
 * and every delivery of the run's subscriptions succeeded and reached a receiver.
 */
export async function exactlyOnce(p: {
  sql: Sql;
  viewsSchema: string;
  mined: string[];
  launches: { asked: number; answered: number; tokens: string[] };
  subscriptions: string[];
  receipts: { webhookId: string }[];
}): Promise<ExactlyOnce> {
  const problems: string[] = [];
  const counts = new Map<string, number>();
  for (let i = 0; i < p.mined.length; i += 5000) {
    const rows = await p.sql<{ tx: string; n: number }[]>`
      select tx_hash as tx, count(*)::int as n from ${p.sql(p.viewsSchema)}.trade
      where tx_hash = any(${p.mined.slice(i, i + 5000)}) group by tx_hash`;
    for (const r of rows) counts.set(r.tx.toLowerCase(), r.n);
  }
  const missing = p.mined.filter((h) => !counts.has(h.toLowerCase())).length;
  const doubled = [...counts.values()].filter((n) => n > 1).length;
  if (missing) problems.push(`${missing} mined trades not indexed`);
  if (doubled) problems.push(`${doubled} trades indexed more than once`);
  const [tok] = await p.sql<{ n: number }[]>`
    select count(*)::int as n from ${p.sql(p.viewsSchema)}.token
    where lower(address) = any(${p.launches.tokens.map((t) => t.toLowerCase())})`;
  const tokensIndexed = tok?.n ?? 0;
  if (p.launches.answered !== p.launches.asked)
    problems.push(`${p.launches.asked - p.launches.answered} launches unanswered`);
  if (tokensIndexed !== p.launches.tokens.length)
    problems.push(`${p.launches.tokens.length - tokensIndexed} launched tokens not indexed`);
  const dl = await p.sql<{ status: string; n: number }[]>`
    select status, count(*)::int as n from app.webhook_deliveries
    where subscription_id = any(${p.subscriptions}) group by status`;
  const deliveries = Object.fromEntries(dl.map((r) => [r.status, r.n]));
  const succeededIds = await p.sql<{ id: string }[]>`
    select webhook_id as id from app.webhook_deliveries
    where subscription_id = any(${p.subscriptions}) and status = 'succeeded'`;
  const seen = new Set(p.receipts.map((r) => r.webhookId));
  const notReceived = succeededIds.filter((r) => !seen.has(r.id)).length;
  const unfinished = Object.entries(deliveries).filter(([s]) => s !== "succeeded");
  if (unfinished.length)
    problems.push(`deliveries not succeeded: ${JSON.stringify(Object.fromEntries(unfinished))}`);
  if (notReceived) problems.push(`${notReceived} succeeded deliveries no receiver saw`);
  return {
    trades: {
      mined: p.mined.length,
      indexedOnce: [...counts.values()].filter((n) => n === 1).length,
      missing,
      doubled,
    },
    launches: { asked: p.launches.asked, answered: p.launches.answered, tokensIndexed },
    webhooks: {
      subscriptions: p.subscriptions.length,
      deliveries,
      received: p.receipts.length,
      receivedUnique: seen.size,
      notReceived,
    },
    ok: problems.length === 0,
    problems,
  };
}
