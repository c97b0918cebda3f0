import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { REVALIDATE, sendCached } from "../http/read-cache.ts";
import type { ReadDeps } from "../http/read-deps.ts";
import {
  AgentParams,
  COMMON_ERRORS,
  errorResponse,
  jsonResponse,
  okEnvelope,
} from "../http/schemas.ts";
import { createVersionCache } from "../http/version-cache.ts";
import { agentOf, agentPath } from "../middleware/agent-path/index.ts";
import { FollowerPoint, SocialStats } from "./schemas.ts";

const NOT_FOUND = { 404: errorResponse("No agent has this token address") };
const WINDOWS = ["1d", "7d", "30d", "all"] as const;
const WINDOW_HOURS = { "1d": 24, "7d": 168, "30d": 720, all: null } as const;

const statsRoute = createRoute({
  method: "get",
  path: "/v2/agents/{agent}/social-stats",
  tags: ["dashboard"],
  summary: "Follower count and recent posts with their engagement (cached by the social poller)",
  description:
    "Newest post first. Each post's `engagement` is X's `public_metrics` (likes, replies, reposts, quotes, impressions) as of the poller's last read of it (`countedAt`); the poller re-reads the newest page of posts every poll.",
  request: { params: AgentParams },
  responses: {
    200: jsonResponse("Follower count and recent posts", okEnvelope(SocialStats)),
    ...NOT_FOUND,
    ...COMMON_ERRORS,
  },
});

const followersRoute = createRoute({
  method: "get",
  path: "/v2/agents/{agent}/follower-history",
  tags: ["dashboard"],
  summary: "Follower count series: the social poller's last count of each hour",
  description: "Oldest first; empty before the first poll or without an X handle.",
  request: {
    params: AgentParams,
    query: z.object({
      window: z
        .enum(WINDOWS, { error: `must be one of ${WINDOWS.join(", ")}` })
        .default("7d")
        .openapi({ type: "string", enum: [...WINDOWS] }),
    }),
  },
  responses: {
    200: jsonResponse(
      "The follower series",
      okEnvelope(z.object({ window: z.enum(WINDOWS), points: z.array(FollowerPoint) })),
    ),
    ...NOT_FOUND,
    ...COMMON_ERRORS,
  },
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
    };
    return { ok: true as const, data };
  };
  const history = async (a: { agentId: string }, window: (typeof WINDOWS)[number]) => {
    const hours = WINDOW_HOURS[window];
    const rows = await d.sql<{ hour: Date; follower_count: number; polled_at: Date }[]>`
      select hour, follower_count, polled_at from app.social_follower_hours
      where agent_id = ${a.agentId}
        ${hours === null ? d.sql`` : d.sql`and hour > now() - make_interval(hours => ${hours})`}
      order by hour`;
    const points = rows.map((x) => ({
      hour: x.hour.toISOString(),
      followerCount: x.follower_count,
      polledAt: x.polled_at.toISOString(),
    }));
    return { ok: true as const, data: { window, points } };
  };
  // One computation per poll: every poll rewrites the cache row, with the counts and the hour.
  const cache = createVersionCache();
  const version = async (agentId: string) => {
    const [r] = await d.sql<{ cached_at: Date }[]>`
      select cached_at from app.agent_social_cache where agent_id = ${agentId}`;
    return String(r?.cached_at.getTime() ?? "-");
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
    const body = await cache.get(key, await version(a.agentId), () => history(a, window));
    return sendCached(c, body, REVALIDATE) as never;
  });
}
