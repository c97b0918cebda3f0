/**
 * BENCHMARK ONLY (`npm run bench:api`): the rows behind the perps, social and portfolio reads,
 * written directly into a throwaway database (see scripts/bench-api.ts). `n.agents` agents each
 * get a perps account with 30 days of hourly values, `n.fills` fills shaped as the poller
 * stores them (with their opens and closes, and their totals), ten ledger flows, a social
 * cache of 20 posts with their counts and 30 days of follower hours; `n.launches` deposit
 * launches with 20 depositors each (accounts drawn from 500), each with a deposit event.
 */
import type { Sql } from "../lib/db/client.ts";

/** The launch, depositor and launch_event tables as Ponder publishes them (columns, indexes). */
export const LAUNCH_TABLES = (schema: string) => `
  create table ${schema}.launch (vault text primary key, id numeric(78) not null, router text not null,
    treasury text not null, predicted_token text not null, token text, pair text,
    tier integer not null, creator text not null, name text, symbol text, metadata text,
    close_timestamp numeric(78) not null, buy_tax_bps integer not null,
    sell_tax_bps integer not null, total_deposited numeric(78) not null,
    depositor_count integer not null, status text not null, refund_reason integer,
    total_claimed numeric(78) not null, total_refunded numeric(78) not null,
    tokens_for_depositors numeric(78), liquidity_bnb numeric(78), liquidity_tokens numeric(78),
    created_block numeric(78) not null, created_at numeric(78) not null);
  create index on ${schema}.launch (creator);
  create table ${schema}.depositor (vault text not null, account text not null,
    principal numeric(78) not null, claimed numeric(78) not null, refunded numeric(78) not null,
    primary key (vault, account));
  create index on ${schema}.depositor (account, vault);
  create table ${schema}.launch_event (id text primary key, vault text not null, kind text not null,
    account text, amount numeric(78), total_deposited numeric(78), block_number numeric(78) not null,
    log_index integer not null, tx_hash text not null, timestamp numeric(78) not null);
  create index on ${schema}.launch_event (account, vault);`;

const hex = (expr: string) => `'0x' || lpad(to_hex(${expr}), 40, '0')`;

/** Seeds the rows (after the agents exist as `agent-<i>`). */
export async function seedPortfolio(
  sql: Sql,
  schema: string,
  n: { agents: number; fills: number; launches: number },
) {
  const s = sql(schema);
  await sql`insert into app.agent_wallets (agent_id, chain, address, role)
    select 'agent-' || i, 'hyperliquid', ${sql.unsafe(hex("0xc0000 + i"))}, 'perps'
    from generate_series(0, ${n.agents - 1}) i on conflict do nothing`;
  await sql`insert into app.perps_accounts (address, agent_id, account_value, withdrawable,
      margin_used, positions, venue_time, polled_at)
    select ${sql.unsafe(hex("0xc0000 + i"))}, 'agent-' || i, 1234.5 + i, 1000, 234.5,
      ${sql.json([position("BTC", "0.1"), position("ETH", "-2")] as never)}, now(), now()
    from generate_series(0, ${n.agents - 1}) i`;
  await sql`insert into app.perps_account_hours (address, hour, account_value, polled_at, venue_time)
    select ${sql.unsafe(hex("0xc0000 + i"))}, date_trunc('hour', now()) - h * interval '1 hour',
      1000 + (i + h) % 97, now() - h * interval '1 hour', now() - h * interval '1 hour'
    from generate_series(0, ${n.agents - 1}) i, generate_series(1, 720) h`;
  // Fills as the poller stores them (jobs/pollers/perps-events.ts: every field of the venue's
  // fill), one in four closing a position with its trade.close and one in four opening one with
  // its trade.open; the account's deposits and a withdrawal every ten days in the ledger.
  await sql`insert into app.agent_events (agent_id, event_type, category, source, source_event_id,
      occurred_at, correlation_id, data)
    select 'agent-' || i, e.type, 'trading', 'hl-listener', e.prefix || i || ':' || k,
      now() - k * interval '1 minute', 'hl:0x' || lpad(to_hex(i * 100000 + k), 64, '0'),
      jsonb_build_object('venue', 'hyperliquid', 'account', ${sql.unsafe(hex("0xc0000 + i"))},
        'market', case when k % 2 = 0 then 'BTC' else 'ETH' end, 'price', (60000 + k % 977)::text || '.5',
        'tid', 1000000 + i * 100000 + k, 'oid', 2000000 + i * 100000 + k,
        'hash', '0x' || lpad(to_hex(i * 100000 + k), 64, '0'))
      || case e.type
        when 'trade.fill' then jsonb_build_object('side', case when k % 2 = 0 then 'buy' else 'sell' end,
          'size', '0.01', 'dir', case when k % 4 = 0 then 'Close Long' else 'Open Long' end,
          'fee', '0.0125', 'feeToken', 'USDC', 'closedPnl', case when k % 4 = 0 then ((k % 7) - 3)::text || '.25' else '0.0' end,
          'startPosition', '0.01', 'crossed', true)
        when 'trade.close' then jsonb_build_object('side', 'long', 'size', '0.01',
          'realizedPnl', ((k % 7) - 3)::text || '.25', 'fee', '0.0125', 'liquidated', false)
        else jsonb_build_object('side', 'long', 'size', '0.01') end
    from generate_series(0, ${n.agents - 1}) i, generate_series(1, ${n.fills}) k,
      lateral (values ('trade.fill', 'fill:'), ('trade.close', 'close:'), ('trade.open', 'open:')) e(type, prefix)
    where e.type = 'trade.fill' or (e.type = 'trade.close' and k % 4 = 0)
      or (e.type = 'trade.open' and k % 4 = 1)`;
  await sql`insert into app.agent_events (agent_id, event_type, category, source, source_event_id,
      occurred_at, data)
    select 'agent-' || i, case when d % 10 = 5 then 'perps.withdraw' else 'perps.deposit' end,
      'treasury', 'hl-listener', 'ledger:' || i || ':' || d, now() - d * interval '1 day',
      jsonb_build_object('venue', 'hyperliquid', 'account', ${sql.unsafe(hex("0xc0000 + i"))},
        'usdc', case when d % 10 = 5 then '200' else '1000' end, 'hash', '0x' || lpad(to_hex(d), 64, '0'))
      || case when d % 10 = 5 then jsonb_build_object('fee', '1') else '{}' end
    from generate_series(0, ${n.agents - 1}) i, generate_series(0, 29, 3) d`;
  // The fill totals as the poller keeps them beside the fills (jobs/pollers/perps.ts).
  await sql`insert into app.perps_fill_totals
    select agent_id, data->>'account', sum((data->>'closedPnl')::numeric),
      sum((data->>'fee')::numeric), count(*), count(*) filter (where (data->>'closedPnl')::numeric > 0),
      count(*) filter (where (data->>'closedPnl')::numeric < 0)
    from app.agent_events where event_type = 'trade.fill' and source = 'hl-listener'
    group by agent_id, data->>'account'`;
  await sql`insert into app.agent_social_cache (agent_id, follower_count, posts, cached_at)
    select 'agent-' || i, 1000 + i, (select jsonb_agg(jsonb_build_object('id', (1000000 + p)::text,
        'text', 'post ' || p, 'createdAt', now(), 'url', 'https://x.com/a/status/' || p)
        order by p desc) from generate_series(1, 20) p), now()
    from generate_series(0, ${n.agents - 1}) i`;
  await sql`insert into app.social_post_metrics (agent_id, tweet_id, like_count, reply_count,
      retweet_count, quote_count, impression_count)
    select 'agent-' || i, (1000000 + p)::text, p, p % 5, p % 3, 0, p * 100
    from generate_series(0, ${n.agents - 1}) i, generate_series(1, 20) p`;
  await sql`insert into app.social_follower_hours (agent_id, hour, follower_count, polled_at)
    select 'agent-' || i, date_trunc('hour', now()) - h * interval '1 hour', 1000 + i - h % 50, now()
    from generate_series(0, ${n.agents - 1}) i, generate_series(0, 719) h`;
  await sql`insert into ${s}.launch
    select ${sql.unsafe(hex("0xd0000 + l"))}, l, ${sql.unsafe(hex("1"))}, ${sql.unsafe(hex("2"))},
      ${sql.unsafe(hex("0xe0000 + l"))}, ${sql.unsafe(hex("0xe0000 + l"))}, null, 0,
      ${sql.unsafe(hex("0xf0000 + l % 500"))}, 'Launch ' || l, 'L' || l, null, 1800000000, 100, 100,
      20e18, 20, case when l % 2 = 0 then 'launched' else 'open' end, null, 0, 0,
      case when l % 2 = 0 then 8e26 end, null, null, 1000 + l, 1700000000 + l
    from generate_series(0, ${n.launches - 1}) l`;
  await sql`insert into ${s}.depositor
    select ${sql.unsafe(hex("0xd0000 + l"))}, ${sql.unsafe(hex("0xf0000 + (l * 7 + d) % 500"))}, 1e18, 0, 0
    from generate_series(0, ${n.launches - 1}) l, generate_series(0, 19) d on conflict do nothing`;
  await sql`insert into ${s}.launch_event
    select l || ':' || d, ${sql.unsafe(hex("0xd0000 + l"))}, 'deposited',
      ${sql.unsafe(hex("0xf0000 + (l * 7 + d) % 500"))}, 1e18, null, 1000 + l, d,
      '0x' || lpad(to_hex(l * 100 + d), 64, '0'), 1700000000 + l
    from generate_series(0, ${n.launches - 1}) l, generate_series(0, 19) d`;
  await sql.unsafe(`analyze app.agent_events; analyze app.perps_account_hours;
    analyze app.social_follower_hours; analyze ${schema}.launch; analyze ${schema}.depositor;
    analyze ${schema}.launch_event`);
}

function position(coin: string, szi: string) {
  return {
    type: "oneWay",
    position: {
      coin,
      szi,
      leverage: { type: "cross", value: 10 },
      entryPx: "1000",
      positionValue: "200",
      unrealizedPnl: "-1.5",
      returnOnEquity: "-0.01",
      liquidationPx: null,
      marginUsed: "20",
      maxLeverage: 40,
      cumFunding: { allTime: "0", sinceOpen: "0", sinceChange: "0" },
    },
  };
}

/**
 * The bench rows of these reads (`/health` is driven before each, as for every row). The series
 * are also asked as the web app's charts ask them (gzip accepted; the client does not inflate).
 */
export function portfolioCases(
  agents: number,
): [string, (i: number) => string, Record<string, string>?][] {
  const agent = (i: number) => `agent-${i % Math.max(1, agents)}`;
  const user = (i: number) => `0x${(0xf0000 + (i % 500)).toString(16).padStart(40, "0")}`;
  const gzip = { "accept-encoding": "gzip" };
  const pnl = (w: string) => (i: number) => `/v2/agents/${agent(i)}/perps/pnl?window=${w}`;
  const followers = (i: number) => `/v2/agents/${agent(i)}/follower-history`;
  return [
    ["GET /v2/agents/:a/perps", (i) => `/v2/agents/${agent(i)}/perps`],
    ["GET /v2/agents/:a/perps/pnl 7d", pnl("7d")],
    ["GET /v2/agents/:a/perps/pnl 7d gzip", pnl("7d"), gzip],
    ["GET /v2/agents/:a/perps/pnl 30d", pnl("30d")],
    ["GET /v2/agents/:a/perps/pnl 30d gzip", pnl("30d"), gzip],
    ["GET /v2/agents/:a/social-stats", (i) => `/v2/agents/${agent(i)}/social-stats`],
    ["GET /v2/agents/:a/follower-history", followers],
    ["GET /v2/agents/:a/follower-history gzip", followers, gzip],
    ["GET /v2/users/:a/launches x20", (i) => `/v2/users/${user(i)}/launches?limit=20`],
  ];
}
