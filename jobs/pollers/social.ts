import type { Sql } from "../../lib/db/client.ts";
import { insertAgentEvents, type NewAgentEvent } from "../../lib/events/store.ts";
import type { Logger } from "../../lib/logger.ts";
import { SOCIAL_CHANGED_CHANNEL } from "../../lib/pollers/sources.ts";
import { type PollKey, readCursor, recordFailure, recordSuccess } from "../../lib/pollers/state.ts";
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
  beforeCommit?: () => void;
};

/**
 * One poll of an agent's X handle (its persona's): followers into the social-stats cache and
 * every post since the last one seen (`since_id`, all pages) as `tweet.posted`, id `tweet:<id>`.
 * A 429 stores X's reset as the time before which no poll asks again.
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
    const user = await c.x.userByUsername(handle);
    const sinceId = typeof cursor.sinceId === "string" ? cursor.sinceId : undefined;
    // Newest first, without since_id: the first page also brings the latest counts of posts
    // already seen (their engagement moves); paging stops at the first page that reaches them.
    const read: XTimelinePost[] = [];
    let token: string | undefined;
    for (let i = 0; i < L.maxPages; i++) {
      const page = await c.x.userTweets(user.id, {
        paginationToken: token,
        maxResults: L.maxResults,
      });
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
      await tx`insert into app.agent_social_cache (agent_id, follower_count, posts, cached_at)
        values (${agentId}, ${user.public_metrics.followers_count}, ${tx.json(cached.slice(0, CACHED_POSTS) as never)}, now())
        on conflict (agent_id) do update set follower_count = excluded.follower_count,
          posts = (select coalesce(jsonb_agg(x order by (x->>'id')::numeric desc), '[]')
            from (select x from (select distinct on (x->>'id') x
                from jsonb_array_elements(excluded.posts || app.agent_social_cache.posts) x) d
              order by (x->>'id')::numeric desc limit ${CACHED_POSTS}) e),
          cached_at = now()`;
      await saveEngagement(tx, agentId, user.public_metrics.followers_count, read);
      await recordSuccess(tx, key, newest ? { sinceId: newest } : {});
      await tx`select pg_notify(${SOCIAL_CHANGED_CHANNEL}, ${agentId})`;
      c.beforeCommit?.();
    });
  } catch (error) {
    const wait =
      error instanceof XRateLimited
        ? (error.reset ?? new Date(Date.now() + L.defaultBackoffMs))
        : undefined;
    await recordFailure(c.sql, key, error, wait);
    c.log.warn({ err: error, agentId, handle }, "social poll failed");
  }
}

/** The counts X gave for each post read, and the hour's follower count (the last poll's). */
async function saveEngagement(tx: Sql, agentId: string, followers: number, posts: XTimelinePost[]) {
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
  await tx`insert into app.social_follower_hours (agent_id, hour, follower_count, polled_at)
    values (${agentId}, date_trunc('hour', now()), ${followers}, now())
    on conflict (agent_id, hour) do update set follower_count = excluded.follower_count,
      polled_at = excluded.polled_at`;
}

/**
 * Whom each round of the social poller polls: agents whose persona has a handle X takes. A
 * handle X refuses, stored before the API checked it (it took 16-32 characters), is left out
 * with one log line per process and handle, instead of a 400 from X every round, forever.
 *
 * @example
 * const agents = socialAgents(log); const ids = await agents(sql); // each round
 */
export function socialAgents(log: Logger): (sql: Sql) => Promise<string[]> {
  const told = new Set<string>();
  return async (sql) => {
    const rows = await sql<{ agent_id: string; handle: string }[]>`
      select agent_id, handle from app.agent_personas where handle is not null order by agent_id`;
    const polled: string[] = [];
    for (const r of rows) {
      if (X_USERNAME.test(r.handle)) {
        polled.push(r.agent_id);
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
    return polled;
  };
}
