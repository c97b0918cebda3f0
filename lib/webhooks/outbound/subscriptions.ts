import { type Sealed, seal, unseal } from "../../crypto/seal.ts";
import type { Sql } from "../../db/client.ts";
import { OUTBOUND_LIMITS } from "../../limits.ts";
import { newId } from "./envelope.ts";
import { OutboundWebhookError } from "./errors.ts";
import { newSigningSecret } from "./signing.ts";

export type SubscriptionFilters = {
  eventTypes: string[] | null;
  sources: string[] | null;
  categories: string[] | null;
};

export type SubscriptionRow = SubscriptionFilters & {
  subscriptionId: string;
  agentId: string;
  url: string;
  description: string | null;
  enabled: boolean;
  disabledReason: "manual" | "gone" | "failing" | null;
  disabledAt: Date | null;
  secret: Sealed;
  previousSecret: Sealed | null;
  previousSecretUntil: Date | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

const COLUMNS = `subscription_id as "subscriptionId", agent_id as "agentId", url,
  event_types as "eventTypes", sources, categories, description, enabled,
  disabled_reason as "disabledReason", disabled_at as "disabledAt", secret,
  previous_secret as "previousSecret", previous_secret_until as "previousSecretUntil",
  failing_since as "failingSince", created_at as "createdAt", updated_at as "updatedAt"`;

/** The secrets that sign a delivery now: the current one, and the previous during overlap. */
export function liveSecrets(key: Buffer, s: SubscriptionRow, now = new Date()): string[] {
  const secrets = [unseal(key, s.secret, s.subscriptionId)];
  if (s.previousSecret && s.previousSecretUntil && s.previousSecretUntil > now) {
    secrets.push(unseal(key, s.previousSecret, s.subscriptionId));
  }
  return secrets;
}

/**
 * True when an event passes a subscription's filters. An event-type filter entry is a type
 * (`token.created`) or a prefix ending in `.*` (`token.*`).
 *
 * @example
 * matchesFilters({ eventTypes: ["token.*"], sources: null, categories: null }, ev); // true
 */
export function matchesFilters(
  f: SubscriptionFilters,
  e: { eventType: string; source: string; category: string },
): boolean {
  if (f.sources && !f.sources.includes(e.source)) return false;
  if (f.categories && !f.categories.includes(e.category)) return false;
  if (!f.eventTypes) return true;
  return f.eventTypes.some((t) =>
    t.endsWith(".*") ? e.eventType.startsWith(t.slice(0, -1)) : t === e.eventType,
  );
}

export type CreateSubscriptionParameters = SubscriptionFilters & {
  agentId: string;
  url: string;
  description: string | null;
};

/**
 * Stores a subscription with a new signing secret (sealed under `key`), at most
 * OUTBOUND_LIMITS.maxSubscriptionsPerAgent per agent (counted under a lock on the agent, so
 * racing requests cannot pass the limit). The secret is returned here and never again.
 */
export async function createSubscription(
  sql: Sql,
  key: Buffer,
  p: CreateSubscriptionParameters,
): Promise<{ subscription: SubscriptionRow; secret: string }> {
  return sql.begin(async (tx) => {
    const [agent] = await tx`select 1 from app.agents where agent_id = ${p.agentId} for update`;
    if (!agent)
      throw new OutboundWebhookError("WEBHOOK_NOT_FOUND", { message: `no agent ${p.agentId}` });
    const [{ n } = { n: 0 }] = await tx<{ n: number }[]>`
      select count(*)::int as n from app.webhook_subscriptions where agent_id = ${p.agentId}`;
    if (n >= OUTBOUND_LIMITS.maxSubscriptionsPerAgent) {
      throw new OutboundWebhookError("WEBHOOK_LIMIT", {
        message: `an agent has at most ${OUTBOUND_LIMITS.maxSubscriptionsPerAgent} webhook subscriptions; delete one first`,
      });
    }
    const subscriptionId = newId("whsub");
    const secret = newSigningSecret();
    const [row] = await tx<SubscriptionRow[]>`
      insert into app.webhook_subscriptions
        (subscription_id, agent_id, url, event_types, sources, categories, description, secret)
      values (${subscriptionId}, ${p.agentId}, ${p.url}, ${p.eventTypes}, ${p.sources},
        ${p.categories}, ${p.description}, ${tx.json(seal(key, secret, subscriptionId))})
      returning ${tx.unsafe(COLUMNS)}`;
    return { subscription: row as SubscriptionRow, secret };
  }) as Promise<{ subscription: SubscriptionRow; secret: string }>;
}

/** The agent's subscriptions, oldest first. */
export async function listSubscriptions(sql: Sql, agentId: string): Promise<SubscriptionRow[]> {
  return sql<SubscriptionRow[]>`select ${sql.unsafe(COLUMNS)} from app.webhook_subscriptions
    where agent_id = ${agentId} order by created_at, subscription_id`;
}

/** One subscription of the agent; OutboundWebhookError WEBHOOK_NOT_FOUND otherwise. */
export async function getSubscription(
  sql: Sql,
  agentId: string,
  subscriptionId: string,
): Promise<SubscriptionRow> {
  const [row] = await sql<SubscriptionRow[]>`select ${sql.unsafe(COLUMNS)}
    from app.webhook_subscriptions
    where agent_id = ${agentId} and subscription_id = ${subscriptionId}`;
  if (!row)
    throw new OutboundWebhookError("WEBHOOK_NOT_FOUND", {
      message: `no webhook subscription ${subscriptionId}`,
    });
  return row;
}

export type UpdateSubscriptionParameters = Partial<SubscriptionFilters> & {
  url?: string;
  description?: string | null;
  enabled?: boolean;
};

/**
 * Changes filters, URL, description or `enabled`. Re-enabling clears the reason and the
 * failure streak, so the 24 h window starts again; pending deliveries resume.
 */
export async function updateSubscription(
  sql: Sql,
  agentId: string,
  subscriptionId: string,
  p: UpdateSubscriptionParameters,
): Promise<SubscriptionRow> {
  const set: Record<string, unknown> = { updated_at: new Date() };
  if (p.url !== undefined) set.url = p.url;
  if (p.eventTypes !== undefined) set.event_types = p.eventTypes;
  if (p.sources !== undefined) set.sources = p.sources;
  if (p.categories !== undefined) set.categories = p.categories;
  if (p.description !== undefined) set.description = p.description;
  if (p.enabled === true) {
    Object.assign(set, {
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
    });
  }
  // Disabling an already disabled subscription keeps its first reason (gone, failing).
  const disable =
    p.enabled === false
      ? sql`, disabled_reason = case when enabled then 'manual' else disabled_reason end,
          disabled_at = case when enabled then now() else disabled_at end, enabled = false`
      : sql``;
  const [row] = await sql<SubscriptionRow[]>`update app.webhook_subscriptions
    set ${sql(set as never)} ${disable}
    where agent_id = ${agentId} and subscription_id = ${subscriptionId}
    returning ${sql.unsafe(COLUMNS)}`;
  if (!row)
    throw new OutboundWebhookError("WEBHOOK_NOT_FOUND", {
      message: `no webhook subscription ${subscriptionId}`,
    });
  return row;
}

/** Deletes a subscription with its deliveries and their log. */
export async function deleteSubscription(
  sql: Sql,
  agentId: string,
  subscriptionId: string,
): Promise<void> {
  const rows = await sql`delete from app.webhook_subscriptions
    where agent_id = ${agentId} and subscription_id = ${subscriptionId} returning 1`;
  if (rows.length === 0) {
    throw new OutboundWebhookError("WEBHOOK_NOT_FOUND", {
      message: `no webhook subscription ${subscriptionId}`,
    });
  }
}

/**
 * A new signing secret; the current one keeps signing beside it for
 * OUTBOUND_LIMITS.rotationOverlapMs, so receivers can switch without losing a delivery.
 */
export async function rotateSecret(
  sql: Sql,
  key: Buffer,
  agentId: string,
  subscriptionId: string,
): Promise<{ subscription: SubscriptionRow; secret: string }> {
  const secret = newSigningSecret();
  const until = new Date(Date.now() + OUTBOUND_LIMITS.rotationOverlapMs);
  const [row] = await sql<SubscriptionRow[]>`update app.webhook_subscriptions
    set previous_secret = secret, previous_secret_until = ${until},
      secret = ${sql.json(seal(key, secret, subscriptionId))}, updated_at = now()
    where agent_id = ${agentId} and subscription_id = ${subscriptionId}
    returning ${sql.unsafe(COLUMNS)}`;
  if (!row)
    throw new OutboundWebhookError("WEBHOOK_NOT_FOUND", {
      message: `no webhook subscription ${subscriptionId}`,
    });
  return { subscription: row, secret };
}
