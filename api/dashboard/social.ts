import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import { SOCIAL_CHANGED_CHANNEL } from "../../lib/pollers/sources.ts";
import type { AppEnv } from "../env.ts";
import { listenPollVersions } from "../http/poll-versions.ts";
import { REVALIDATE, sendCached } from "../http/read-cache.ts";
import type { ReadDeps } from "../http/read-deps.ts";
import { AgentParams, dataResponses, IsoTime, oneOf } from "../http/schemas.ts";
import { createVersionCache } from "../http/version-cache.ts";
import { READ_CACHE_LIMITS } from "../limits.ts";
import { AGENT_NOT_FOUND, agentOf, agentPath } from "../middleware/agent-path/index.ts";
import { dashboardRead, FollowerPoint, SocialStats } from "./schemas.ts";

const WINDOWS = ["1d", "7d", "30d", "all"] as const;
const WINDOW_HOURS = { "1d": 24, "7d": 168, "30d": 720, all: null } as const;
const HOUR_MS = 3_600_000;

const statsRoute = dashboardRead(
  "/social-stats",
  "Follower count and recent posts with their engagement (cached by the social poller)",
  SocialStats,
  "Newest post first. Each post's `engagement` is X's `public_metrics` (likes, replies, reposts, quotes, impressions) as of the poller's last read of it (`countedAt`); the poller re-reads the newest page of posts every poll.",
  "Follower count and recent posts",
);

const followersRoute = createRoute({
  method: "get",
  path: "/v2/agents/{agent}/follower-history",
  tags: ["dashboard"],
  summary: "Follower count series: the social poller's last count of each hour",
  description: "Oldest first; empty before the first poll or without an X handle.",
  request: {
    params: AgentParams,
    query: z.object({
      window: oneOf(WINDOWS)
        .default("7d")
        .openapi({ type: "string", enum: [...WINDOWS] }),
    }),
  },
  responses: dataResponses(
    "The follower series",
    z.object({
      window: z.enum(WINDOWS),
      points: z.array(FollowerPoint),
      asOf: IsoTime.nullable().openapi({
        description: "The newest point's poll (null: none): how old the series' end is",
      }),
    }),
    AGENT_NOT_FOUND,
  ),
});

type CachedPost = { id: string; text: string; createdAt: string | null; url: string };
type MetricsRow = {
  tweet_id: string;
  like_count: number;
  reply_count: number;
  retweet_count: number;
  quote_count: number;
  impression_count: number | null;
  counted_at: Date;
};

/**
 * The agent's X figures the social poller stored: follower count, recent posts with their
 * engagement, and the hourly follower series.
 *
 * @example
 * registerSocialReads(app, { sql, reads });
 */
export function registerSocialReads(app: OpenAPIHono<AppEnv>, d: { sql: Sql; reads: ReadDeps }) {
  // Public reads: the agent's resolution is kept per indexed generation.
  const middleware = [agentPath({ sql: d.sql, tracker: d.reads.tracker })];
  const stats = async (a: { agentId: string }) => {
    const [r] = await d.sql<{ follower_count: number; posts: CachedPost[]; cached_at: Date }[]>`
      select follower_count, posts, cached_at from app.agent_social_cache
      where agent_id = ${a.agentId}`;
    const posts = r?.posts ?? [];
    const ids = posts.map((p) => p.id);
    const metrics =
      ids.length === 0
        ? []
        : await d.sql<MetricsRow[]>`select * from app.social_post_metrics
            where agent_id = ${a.agentId} and tweet_id in ${d.sql(ids)}`;
    const byId = new Map(metrics.map((m) => [m.tweet_id, m]));
    const data = {
      followerCount: r?.follower_count ?? null,
      posts: posts.map((p) => {
        const m = byId.get(p.id);
        return {
          id: p.id,
          text: p.text,
          createdAt: p.createdAt ?? null,
          url: p.url,
          engagement: m
            ? {
                likeCount: m.like_count,
                replyCount: m.reply_count,
                repostCount: m.retweet_count,
                quoteCount: m.quote_count,
                impressionCount: m.impression_count,
                countedAt: m.counted_at.toISOString(),
              }
            : null,
        };
      }),
      cachedAt: r?.cached_at.toISOString() ?? null,
      asOf: r?.cached_at.toISOString() ?? null,
    };
    return { ok: true as const, data };
  };
  // The hours after `now` less the window; `expiresAt`: when the oldest of them leaves it.
  const history = async (a: { agentId: string }, window: (typeof WINDOWS)[number]) => {
    const span = WINDOW_HOURS[window] === null ? null : (WINDOW_HOURS[window] as number) * HOUR_MS;
    const rows = await d.sql<{ hour: Date; follower_count: number; polled_at: Date }[]>`
      select hour, follower_count, polled_at from app.social_follower_hours
      where agent_id = ${a.agentId}
        ${span === null ? d.sql`` : d.sql`and hour > ${new Date(Date.now() - span)}`}
      order by hour`;
    const points = rows.map((x) => ({
      hour: x.hour.toISOString(),
      followerCount: x.follower_count,
      polledAt: x.polled_at.toISOString(),
    }));
    const oldest = rows[0]?.hour.getTime();
    const asOf = rows.at(-1)?.polled_at.toISOString() ?? null;
    return {
      json: JSON.stringify({ ok: true as const, data: { window, points, asOf } }),
      expiresAt: span === null || oldest === undefined ? Infinity : oldest + span,
    };
  };
  // One computation per poll. The version: the poller's notification counted in memory (no
  // query), or, while not listening, the time of the last poll's rewrite of the cache row.
  const cache = createVersionCache({ maxAgeMs: READ_CACHE_LIMITS.polledMaxAgeMs });
  const polls = listenPollVersions(d.sql, SOCIAL_CHANGED_CHANNEL);
  const version = async (agentId: string) => {
    const known = polls.version(agentId);
    if (known !== undefined) return known;
    const [r] = await d.sql<{ cached_at: Date }[]>`
      select cached_at from app.agent_social_cache where agent_id = ${agentId}`;
    return `db:${r?.cached_at.getTime() ?? "-"}`;
  };
  app.openapi({ ...statsRoute, middleware }, async (c) => {
    const a = agentOf(c);
    const body = await cache.get(`${a.agentId} stats`, await version(a.agentId), () => stats(a));
    return sendCached(c, body, REVALIDATE) as never;
  });
  app.openapi({ ...followersRoute, middleware }, async (c) => {
    const a = agentOf(c);
    const { window } = c.req.valid("query");
    const key = `${a.agentId} followers ${window}`;
    const body = await cache.getJson(key, await version(a.agentId), () => history(a, window));
    return sendCached(c, body, REVALIDATE) as never;
  });
}
