import type { Sql } from "../../lib/db/client.ts";
import { view } from "../../lib/db/views.ts";
import type { AgentEventRow } from "../../lib/events/store.ts";
import { encodeCursor, type Position, type Stream } from "./cursor.ts";
import {
  agentEventItem,
  dividendClaimItem,
  LAUNCH_MESSAGE_TYPES,
  launchEventItem,
  launchItem,
  marketTradeItem,
  tradeItem,
} from "./items.ts";
import { positionOf, type Row, type ViewStreamSpec } from "./view-tail.ts";

export const CHANNEL_KINDS = [
  "launch",
  "token",
  "factory",
  "agent",
  "trades",
  "dividends",
] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** Which stream each channel kind reads. */
export const STREAM_OF: Record<ChannelKind, Stream> = {
  token: "trade",
  trades: "trade",
  launch: "launchEvent",
  factory: "launch",
  agent: "agent",
  dividends: "dividendClaim",
};

/** The order and key of a view of chain logs, and the reference of one of its rows. */
const LOG_COLUMNS = {
  blockColumn: "block_number",
  indexColumn: "log_index",
  keyColumn: "id",
} as const;
const logRef = (r: Row) => ({
  txHash: r.tx_hash,
  logIndex: Number(r.log_index),
  blockNumber: String(r.block_number),
});

/** The views the chain channels follow; `route` picks the channel an item belongs to. */
export const VIEW_STREAMS: ViewStreamSpec[] = [
  { stream: "trade", view: "trade", ...LOG_COLUMNS, route: (r) => r.token as string, ref: logRef },
  {
    stream: "launchEvent",
    view: "launch_event",
    ...LOG_COLUMNS,
    route: (r) => r.vault as string,
    ref: (r) => ({ type: LAUNCH_MESSAGE_TYPES[r.kind as string] ?? r.kind, ...logRef(r) }),
  },
  {
    stream: "dividendClaim",
    view: "dividend_claim",
    ...LOG_COLUMNS,
    route: (r) => r.account as string,
    ref: logRef,
  },
  {
    stream: "launch",
    view: "launch",
    blockColumn: "created_block",
    indexColumn: "id",
    keyColumn: "vault",
    route: () => "",
    ref: (r) => ({ id: String(r.id), vault: r.vault }),
  },
];

/** The route of the `trades` channel: every trade stream item goes to it besides its token's. */
export const ALL_ROUTES = "*";

/** A channel a client named, resolved: its canonical name and the route key of its items. */
export type ResolvedChannel = { kind: ChannelKind; name: string; route: string; launchId?: string };

const ADDRESS = /^0x[0-9a-f]{40}$/;

/**
 * Resolves `(channel, id)` to a channel, or a string saying why not (unknown id). Throws only
 * for database failures (a missing view is the caller's `unavailable`).
 */
export async function resolveChannel(
  sql: Sql,
  schema: string,
  kind: ChannelKind,
  rawId: string | undefined,
): Promise<ResolvedChannel | string> {
  const id = rawId?.toLowerCase();
  if (kind === "factory") {
    return id ? "factory takes no id" : { kind, name: "factory", route: "" };
  }
  if (kind === "trades") {
    return id ? "trades takes no id" : { kind, name: "trades", route: ALL_ROUTES };
  }
  if (!id) return `${kind} needs an id`;
  if (kind === "launch") {
    if (!/^[0-9]{1,20}$/.test(id) && !ADDRESS.test(id))
      return "a launch id is the launch number or its vault address";
    const where = id.startsWith("0x") ? sql`vault = ${id}` : sql`id = ${id}::numeric`;
    const [r] = await sql<
      Row[]
    >`select id, vault from ${view(sql, schema, "launch")} where ${where}`;
    if (!r) return `no launch ${id} is indexed`;
    const launchId = String(r.id);
    return { kind, name: `launch.${launchId}`, route: r.vault as string, launchId };
  }
  if (!ADDRESS.test(id)) return `a ${kind} id is a 20-byte hex address`;
  // Any wallet may hold a tax token tomorrow: every address has a dividends channel.
  if (kind === "dividends") return { kind, name: `dividends.${id}`, route: id };
  if (kind === "token") {
    const [r] = await sql`select 1 from ${view(sql, schema, "token")} where address = ${id}`;
    return r ? { kind, name: `token.${id}`, route: id } : `no token ${id} is indexed`;
  }
  const [a] = await sql<{ agentId: string }[]>`
    select agent_id as "agentId" from app.agents where token_address = ${id}`;
  return a ? { kind, name: `agent.${id}`, route: a.agentId } : `no agent has the token ${id}`;
}

/** A message ready to send: its position (for the seam filter) and its JSON text. */
export type Outgoing = { position: Position; text: string; bytes?: Buffer; always?: boolean };

/** The message of one chain row on channel `c`, or undefined when `c` does not carry it. */
export function chainMessage(
  c: ResolvedChannel,
  row: Row,
  position: Position,
): Outgoing | undefined {
  const stream = STREAM_OF[c.kind];
  let type: string;
  let data: unknown;
  if (c.kind === "token") [type, data] = ["trade", tradeItem(row)];
  else if (c.kind === "trades") [type, data] = ["trade", marketTradeItem(row)];
  else if (c.kind === "factory") [type, data] = ["launchCreated", launchItem(row)];
  else if (c.kind === "dividends") [type, data] = ["dividendClaimed", dividendClaimItem(row)];
  else if (c.kind === "launch") {
    const t = LAUNCH_MESSAGE_TYPES[row.kind as string];
    if (!t) return undefined;
    [type, data] = [t, launchEventItem(row, c.launchId ?? "")];
  } else return undefined;
  return { position, text: message(type, c.name, data, encodeCursor(stream, position)) };
}

/** The message of one agent event; hidden and internal events never leave through the bridge. */
export function agentMessage(c: ResolvedChannel, row: AgentEventRow, position: Position) {
  if (row.visibility !== "public") return undefined;
  const cursor = encodeCursor("agent", position);
  return { position, text: message("event", c.name, agentEventItem(row), cursor) };
}

/** Every server message has the same four fields. */
export function message(
  type: string,
  channel: string | null,
  data: unknown,
  cursor: string | null,
) {
  return JSON.stringify({ type, channel, data, cursor });
}

/** Replays items of `c` after `since`, oldest first, at most `limit`. */
export async function replay(
  sql: Sql,
  schema: string,
  c: ResolvedChannel,
  since: Position,
  limit: number,
): Promise<Outgoing[]> {
  const [b, i] = [since[0].toString(), since[1].toString()];
  if (c.kind === "agent") {
    const rows = await sql<(AgentEventRow & { tx: string })[]>`
      select id, agent_id as "agentId", event_type as "eventType", category, source,
        source_event_id as "sourceEventId", occurred_at as "occurredAt",
        ingested_at as "ingestedAt", correlation_id as "correlationId", visibility, data,
        chain_id as "chainId", block_number as "blockNumber", tx_id::text as tx
      from app.agent_events
      where agent_id = ${c.route} and visibility = 'public'
        and (tx_id, id) > (${b}::xid8, ${i}::bigint)
        and tx_id < pg_snapshot_xmin(pg_current_snapshot())
      order by tx_id, id limit ${limit}`;
    return rows.flatMap((r) => agentMessage(c, r, [BigInt(r.tx), r.id]) ?? []);
  }
  const spec = VIEW_STREAMS.find((s) => s.stream === STREAM_OF[c.kind]) as ViewStreamSpec;
  const v = view(sql, schema, spec.view);
  const pos = sql`(${sql(spec.blockColumn)}, ${sql(spec.indexColumn)})`;
  const filter =
    c.kind === "token"
      ? sql`token = ${c.route} and`
      : c.kind === "launch"
        ? sql`vault = ${c.route} and`
        : c.kind === "dividends"
          ? sql`account = ${c.route} and`
          : sql``;
  const rows = await sql<Row[]>`select * from ${v}
    where ${filter} ${pos} > (${b}::numeric, ${i}::numeric) order by ${pos} limit ${limit}`;
  return rows.flatMap((r) => chainMessage(c, r, positionOf(spec, r)) ?? []);
}
