import { randomUUID } from "node:crypto";
import type { Sql } from "../db/client.ts";
import { LaunchpadError } from "../errors.ts";
import { insertAgentEvents } from "../events/store.ts";
import { PERPS_CHANGED_CHANNEL } from "../pollers/sources.ts";

/** `source` of the events the dashboard writes emit (category `system`). */
export const DASHBOARD_EVENT_SOURCE = "dashboard-api";

/** Who made a change: the agent with its key, or an operator. */
export type Actor = { kind: "agent" | "operator"; id: string };

export type PersonaInput = {
  name: string;
  handle?: string | null;
  bio?: string;
  links?: { label: string; url: string }[];
  imageUrl?: string | null;
};
export type AppInput = {
  name: string;
  url: string;
  description?: string;
  revenueAddress?: string | null;
  revenueShareBps?: number | null;
};
export type BurnItemInput = {
  provider: string;
  kind: "inference" | "compute" | "other";
  /** Exact decimal string; absent for usage-based items. */
  monthlyUsd?: string;
  usageBased: boolean;
  label?: string | null;
};
export type WalletInput = {
  chain: "bsc" | "arbitrum" | "hyperliquid";
  address: string;
  role: "perps" | "treasury" | "operations" | "other";
  label?: string | null;
};

type Tx = Sql;

/**
 * Runs `write` and stores its `agent_events` row in one transaction: the feed shows a change
 * exactly when the change is stored.
 */
async function withEvent<T>(
  sql: Sql,
  agentId: string,
  actor: Actor,
  eventType: string,
  write: (tx: Tx) => Promise<{ result: T; data: Record<string, unknown> }>,
): Promise<T> {
  return sql.begin(async (raw) => {
    const tx = raw as unknown as Tx;
    const { result, data } = await write(tx);
    await insertAgentEvents({
      sql: tx,
      events: [
        {
          agentId,
          eventType,
          category: "system",
          source: DASHBOARD_EVENT_SOURCE,
          sourceEventId: randomUUID(),
          occurredAt: new Date(),
          data: { ...data, actor: actor.kind },
        },
      ],
    });
    return result;
  }) as Promise<T>;
}

/**
 * Creates or replaces the agent's persona and emits `persona.updated`.
 *
 * @example
 * await putPersona(sql, agentId, { kind: "agent", id: agentId }, { name: "Ava", bio: "…" });
 */
export function putPersona(sql: Sql, agentId: string, actor: Actor, p: PersonaInput) {
  return withEvent(sql, agentId, actor, "persona.updated", async (tx) => {
    await tx`insert into app.agent_personas (agent_id, name, handle, bio, links, image_url)
      values (${agentId}, ${p.name}, ${p.handle ?? null}, ${p.bio ?? ""},
        ${tx.json(p.links ?? [])}, ${p.imageUrl ?? null})
      on conflict (agent_id) do update set name = excluded.name, handle = excluded.handle,
        bio = excluded.bio, links = excluded.links, image_url = excluded.image_url,
        updated_at = now()`;
    return { result: undefined, data: { name: p.name, handle: p.handle ?? null } };
  });
}

/** Adds an app the agent shipped; emits `app.added`. Returns the new app's id. */
export function addApp(sql: Sql, agentId: string, actor: Actor, a: AppInput): Promise<string> {
  const appId = randomUUID();
  return withEvent(sql, agentId, actor, "app.added", async (tx) => {
    await tx`insert into app.agent_apps
        (app_id, agent_id, name, url, description, revenue_address, revenue_share_bps)
      values (${appId}, ${agentId}, ${a.name}, ${a.url}, ${a.description ?? ""},
        ${a.revenueAddress ?? null}, ${a.revenueShareBps ?? null})`;
    return { result: appId, data: { appId, name: a.name, url: a.url } };
  });
}

/** Thrown when a write names a record (or agent) that does not exist; the API answers 404. */
export class MissingRecordError extends LaunchpadError<"RECORD_NOT_FOUND"> {
  override name = "MissingRecordError";
  constructor(message: string) {
    super("RECORD_NOT_FOUND", { message });
  }
}

/**
 * Removes one of the agent's apps; emits `app.removed`. Throws MissingRecordError when the
 * agent has no such app (another agent's app included).
 */
export function removeApp(sql: Sql, agentId: string, actor: Actor, appId: string) {
  return withEvent(sql, agentId, actor, "app.removed", async (tx) => {
    const rows = await tx`delete from app.agent_apps
      where agent_id = ${agentId} and app_id = ${appId} returning name`;
    if (rows.length === 0) throw new MissingRecordError(`the agent has no app ${appId}`);
    return { result: undefined, data: { appId, name: rows[0]?.name } };
  });
}

/**
 * Replaces the agent's burn config with `items` (in order); emits `burn_config.updated`.
 *
 * @example
 * await putBurnConfig(sql, agentId, actor, [{ provider: "openai", kind: "inference", usageBased: true }]);
 */
export function putBurnConfig(sql: Sql, agentId: string, actor: Actor, items: BurnItemInput[]) {
  return withEvent(sql, agentId, actor, "burn_config.updated", async (tx) => {
    await tx`delete from app.agent_burn_items where agent_id = ${agentId}`;
    if (items.length > 0) {
      const rows = items.map((i, position) => ({
        agent_id: agentId,
        position,
        provider: i.provider,
        kind: i.kind,
        monthly_usd: i.usageBased ? null : (i.monthlyUsd ?? null),
        usage_based: i.usageBased,
        label: i.label ?? null,
      }));
      await tx`insert into app.agent_burn_items ${tx(rows as never)}`;
    }
    return { result: undefined, data: { items: items.length } };
  });
}

/**
 * Registers a wallet (idempotent per chain and address: a second call updates role and label);
 * emits `wallet.registered`.
 *
 * @example
 * await addWallet(sql, agentId, actor, { chain: "hyperliquid", address, role: "perps" });
 */
export function addWallet(sql: Sql, agentId: string, actor: Actor, w: WalletInput) {
  return withEvent(sql, agentId, actor, "wallet.registered", async (tx) => {
    await tx`insert into app.agent_wallets (agent_id, chain, address, role, label)
      values (${agentId}, ${w.chain}, ${w.address}, ${w.role}, ${w.label ?? null})
      on conflict (agent_id, chain, address) do update
        set role = excluded.role, label = excluded.label`;
    await tx`select pg_notify(${PERPS_CHANGED_CHANNEL}, ${agentId})`; // the perps reads' wallet
    return { result: undefined, data: { chain: w.chain, address: w.address, role: w.role } };
  });
}

/** Unregisters a wallet; emits `wallet.removed`. MissingRecordError when it is not registered. */
export function removeWallet(
  sql: Sql,
  agentId: string,
  actor: Actor,
  w: { chain: string; address: string },
) {
  return withEvent(sql, agentId, actor, "wallet.removed", async (tx) => {
    const rows = await tx`delete from app.agent_wallets
      where agent_id = ${agentId} and chain = ${w.chain} and address = ${w.address}
      returning role`;
    if (rows.length === 0) {
      throw new MissingRecordError(`no ${w.chain} wallet ${w.address} is registered`);
    }
    await tx`select pg_notify(${PERPS_CHANGED_CHANNEL}, ${agentId})`; // the perps reads' wallet
    return { result: undefined, data: { chain: w.chain, address: w.address } };
  });
}

/** Any fixed number: serialises featuring so concurrent setters leave exactly one. */
const FEATURE_LOCK = 7_400_013;

/**
 * Features the agent named by its agentId or its token address (as operators name it);
 * throws `MissingRecordError` when there is none.
 *
 * @example
 * const { agentId, changed } = await featureAgentByRef(sql, "0xabc…", { kind: "operator", id: "cli" });
 */
export async function featureAgentByRef(sql: Sql, ref: string, actor: Actor) {
  const [row] = await sql<{ agent_id: string }[]>`select agent_id from app.agents
    where agent_id = ${ref} or token_address = ${ref.toLowerCase()}`;
  if (!row) throw new MissingRecordError(`no agent ${ref}`);
  return { agentId: row.agent_id, changed: await featureAgent(sql, row.agent_id, actor) };
}

/**
 * Makes `agentId` the featured agent: the old one is unset in the same transaction, under a
 * lock so two concurrent calls cannot both keep theirs (the partial unique index on
 * app.agents.featured is the last guard). Featuring the featured agent again is a no-op that
 * returns false. Emits `agent.featured` and counts one featuring.
 *
 * @example
 * const changed = await featureAgent(sql, agentId, { kind: "operator", id: "cli" });
 */
export function featureAgent(sql: Sql, agentId: string, actor: Actor): Promise<boolean> {
  return sql.begin(async (raw) => {
    const tx = raw as unknown as Tx;
    await tx`select pg_advisory_xact_lock(${FEATURE_LOCK})`;
    const [agent] = await tx<{ featured: boolean; token_address: string | null }[]>`
      select featured, token_address from app.agents where agent_id = ${agentId}`;
    if (!agent) throw new MissingRecordError(`no agent ${agentId}`);
    if (agent.featured) return false;
    const [old] = await tx<{ agent_id: string }[]>`
      update app.agents set featured = false where featured returning agent_id`;
    await tx`update app.agents set featured = true where agent_id = ${agentId}`;
    await tx`insert into app.agent_featurings (agent_id, featured_by)
      values (${agentId}, ${`${actor.kind}:${actor.id}`})`;
    const now = new Date();
    const id = randomUUID();
    await insertAgentEvents({
      sql: tx,
      events: [
        {
          agentId,
          eventType: "agent.featured",
          category: "system",
          source: DASHBOARD_EVENT_SOURCE,
          sourceEventId: id,
          occurredAt: now,
          data: { featured: true, previous: old?.agent_id ?? null, actor: actor.kind },
        },
        ...(old
          ? [
              {
                agentId: old.agent_id,
                eventType: "agent.unfeatured",
                category: "system" as const,
                source: DASHBOARD_EVENT_SOURCE,
                sourceEventId: `${id}:unfeatured`,
                occurredAt: now,
                data: { featured: false, next: agentId, actor: actor.kind },
              },
            ]
          : []),
      ],
    });
    return true;
  }) as Promise<boolean>;
}
