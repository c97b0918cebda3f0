import type { Sql } from "../../lib/db/client.ts";
import { insertAgentEvents, type NewAgentEvent } from "../../lib/events/store.ts";
import type { Logger } from "../../lib/logger.ts";
import { trySpend, type WeightBudget } from "../../lib/pollers/budget.ts";
import { SOCIAL_CHANGED_CHANNEL } from "../../lib/pollers/sources.ts";
import {
  type PollKey,
  readCursor,
  recordDeferral,
  recordFailure,
  recordSuccess,
} from "../../lib/pollers/state.ts";
import { XRateLimited, type XReadClient } from "../../services/x/client.ts";
import { X_USERNAME, X_USERNAME_RULE, type XTimelinePost } from "../../services/x/protocol.ts";
import { POLLER_LIMITS } from "../limits.ts";

/** Source of every event the social poller writes. */
export const SOCIAL_SOURCE = "social-poller";
/** Posts kept in the social-stats cache, newest first. */
const CACHED_POSTS = 20;
const L = POLLER_LIMITS.social;

export type SocialPollContext = {
  sql: Sql;
  x: XReadClient;
  log: Logger;
  /**
   * The tier's windows of the two reads, shared by every worker (lib/pollers/budget.ts): each
   * request takes one from its budget first, and a poll the budget refuses is deferred, not
   * sent, so X never answers 429 in steady state. Unset: no budget (tests of one poll).
   */
  budgets?: { timelines: WeightBudget; lookups: WeightBudget };
  beforeCommit?: () => void;
};

/** Takes one request from a budget, or throws `Deferred` (nothing sent, nothing lost). */
async function take(c: SocialPollContext, which: "timelines" | "lookups"): Promise<void> {
  const b = c.budgets?.[which];
  if (b && !(await trySpend(c.sql, b, 1)).ok) throw new Deferred();
}
class Deferred extends Error {}

/**
 * One poll of an agent's X handle (its persona's): followers into the social-stats cache and
 * every post since the last one seen (`since_id`, all pages) as `tweet.posted`, id `tweet:<id>`.
 * The handle's user id is looked up once and kept in the cursor; after that a poll is one
 * timeline request, whose author expansion brings the follower count. A 429 stores X's reset
 * as the time before which no poll asks again.
 */
export async function pollSocialAgent(c: SocialPollContext, agentId: string): Promise<void> {
  const [persona] = await c.sql<{ handle: string | null }[]>`
    select handle from app.agent_personas where agent_id = ${agentId}`;
  // A handle X refuses (stored before the API checked it) is never asked for: X answers 400.
  if (!persona?.handle || !X_USERNAME.test(persona.handle)) return;
  const handle = persona.handle;
  const key: PollKey = { poller: "social", agentId, target: handle.toLowerCase() };
  const { cursor, notBefore } = await readCursor(c.sql, key);
  if (notBefore && notBefore.getTime() > Date.now()) return;
  try {
    let user: { id: string; username: string; followers: number | null };
    if (typeof cursor.userId === "string" && typeof cursor.username === "string") {
      user = { id: cursor.userId, username: cursor.username, followers: null };
    } else {
      await take(c, "lookups");
      const u = await c.x.userByUsername(handle);
      user = { id: u.id, username: u.username, followers: u.public_metrics.followers_count };
    }
    const sinceId = typeof cursor.sinceId === "string" ? cursor.sinceId : undefined;
    // Newest first, without since_id: the first page also brings the latest counts of posts
    // already seen (their engagement moves); paging stops at the first page that reaches them.
    const read: XTimelinePost[] = [];
    let token: string | undefined;
    for (let i = 0; i < L.maxPages; i++) {
      await take(c, "timelines");
      const page = await c.x.userTweets(user.id, {
        paginationToken: token,
        maxResults: L.maxResults,
      });
      const author = page.includes?.users?.find((u) => u.id === user.id);
      if (author?.public_metrics) user.followers = author.public_metrics.followers_count;
      const data = page.data ?? [];
      read.push(...data);
      token = page.meta.next_token;
      if (!token || (sinceId && data.some((p) => BigInt(p.id) <= BigInt(sinceId)))) break;
    }
    const posts = sinceId ? read.filter((p) => BigInt(p.id) > BigInt(sinceId)) : read;
    const newest = posts.reduce<string | null>(
      (m, p) => (m === null || BigInt(p.id) > BigInt(m) ? p.id : m),
      null,
    );
    const events: NewAgentEvent[] = posts.map((p) => ({
      agentId,
      eventType: "tweet.posted",
      category: "apps",
      source: SOCIAL_SOURCE,
      sourceEventId: `tweet:${p.id}`,
      occurredAt: p.created_at ? new Date(p.created_at) : new Date(),
      data: {
        tweetId: p.id,
        text: p.text,
        url: `https://x.com/${user.username}/status/${p.id}`,
        reply: p.referenced_tweets?.some((r) => r.type === "replied_to") ?? false,
      },
    }));
    await c.sql.begin(async (t) => {
      const tx = t as unknown as Sql;
      await insertAgentEvents({ sql: tx, events });
      const cached = posts.map((p) => ({
        id: p.id,
        text: p.text,
        createdAt: p.created_at ?? null,
        url: `https://x.com/${user.username}/status/${p.id}`,
      }));
      // An empty timeline brings no author: the follower count stays as last read.
      await tx`insert into app.agent_social_cache (agent_id, follower_count, posts, cached_at)
        values (${agentId}, ${user.followers ?? 0}, ${tx.json(cached.slice(0, CACHED_POSTS) as never)}, now())
        on conflict (agent_id) do update set follower_count = ${
          user.followers === null
            ? tx`app.agent_social_cache.follower_count`
            : tx`excluded.follower_count`
        },
          posts = (select coalesce(jsonb_agg(x order by (x->>'id')::numeric desc), '[]')
            from (select x from (select distinct on (x->>'id') x
                from jsonb_array_elements(excluded.posts || app.agent_social_cache.posts) x) d
              order by (x->>'id')::numeric desc limit ${CACHED_POSTS}) e),
          cached_at = now()`;
      await saveEngagement(tx, agentId, user.followers, read);
      await recordSuccess(tx, key, {
        userId: user.id,
        username: user.username,
        ...(newest ? { sinceId: newest } : {}),
      });
      await tx`select pg_notify(${SOCIAL_CHANGED_CHANNEL}, ${agentId})`;
      c.beforeCommit?.();
    });
  } catch (error) {
    if (error instanceof Deferred) {
      await recordDeferral(c.sql, key);
      return;
    }
    const wait =
      error instanceof XRateLimited
        ? (error.reset ?? new Date(Date.now() + L.defaultBackoffMs))
        : undefined;
    await recordFailure(c.sql, key, error, wait);
    c.log.warn({ err: error, agentId, handle }, "social poll failed");
  }
}

/** The counts X gave for each post read, and the hour's follower count (the last poll's). */
async function saveEngagement(
  tx: Sql,
  agentId: string,
  followers: number | null,
  posts: XTimelinePost[],
) {
  const rows = posts
    .filter((p) => p.public_metrics)
    .map((p) => {
      const m = p.public_metrics as Record<string, number>;
      return {
        agent_id: agentId,
        tweet_id: p.id,
        like_count: m.like_count ?? 0,
        reply_count: m.reply_count ?? 0,
        retweet_count: m.retweet_count ?? 0,
        quote_count: m.quote_count ?? 0,
        impression_count: m.impression_count ?? null,
      };
    });
  if (rows.length > 0) {
    await tx`insert into app.social_post_metrics ${tx(rows)}
      on conflict (agent_id, tweet_id) do update set like_count = excluded.like_count,
        reply_count = excluded.reply_count, retweet_count = excluded.retweet_count,
        quote_count = excluded.quote_count, impression_count = excluded.impression_count,
        counted_at = now()`;
  }
  if (followers === null) return;
  await tx`insert into app.social_follower_hours (agent_id, hour, follower_count, polled_at)
    values (${agentId}, date_trunc('hour', now()), ${followers}, now())
    on conflict (agent_id, hour) do update set follower_count = excluded.follower_count,
      polled_at = excluded.polled_at`;
}

/**
 * Whom each round of the social poller polls: agents whose persona has a handle X takes (as
 * many as `plan` picks of them). A
 * handle X refuses, stored before the API checked it (it took 16-32 characters), is left out
 * with one log line per process and handle, instead of a 400 from X every round, forever.
 *
 * @example
 * const agents = socialAgents(log); const ids = await agents(sql); // each round
 */
export function socialAgents(
  log: Logger,
  plan?: (agents: { agentId: string; handle: string; since: number }[]) => Promise<string[]>,
): (sql: Sql) => Promise<string[]> {
  const told = new Set<string>();
  return async (sql) => {
    const rows = await sql<{ agent_id: string; handle: string; updated_at: Date }[]>`
      select agent_id, handle, updated_at from app.agent_personas where handle is not null
      order by agent_id`;
    const polled: { agentId: string; handle: string; since: number }[] = [];
    for (const r of rows) {
      if (X_USERNAME.test(r.handle)) {
        polled.push({ agentId: r.agent_id, handle: r.handle, since: r.updated_at.getTime() });
        continue;
      }
      const key = `${r.agent_id}:${r.handle}`;
      if (told.has(key)) continue;
      told.add(key);
      log.warn(
        { agentId: r.agent_id, handle: r.handle },
        `persona handle is not ${X_USERNAME_RULE}: not polled until the agent saves one`,
      );
    }
    // The round's share of the tier's windows, most urgent first (jobs/pollers/rounds.ts).
    return plan ? plan(polled) : polled.map((a) => a.agentId);
  };
}
