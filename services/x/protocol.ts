import { z } from "zod";

/** Paths of X's OAuth 2.0 and API v2 that the service uses (PROTOCOLS.md section 3). */
export const X_PATHS = {
  /** On the web host (x.com). */
  authorize: "/i/oauth2/authorize",
  /** On the API host (api.x.com). */
  token: "/2/oauth2/token",
  me: "/2/users/me",
  tweets: "/2/tweets",
  /** App or user token; `:username` then `?user.fields=public_metrics`. */
  userByUsername: "/2/users/by/username",
  /** `/2/users/:id/tweets?since_id&max_results&pagination_token`. */
  userTweets: (id: string) => `/2/users/${id}/tweets`,
} as const;

/**
 * What X takes as a username (`GET /2/users/by/username/:username` refuses anything else with
 * 400): 1-15 letters, digits or `_`, without the `@`.
 */
export const X_USERNAME = /^[A-Za-z0-9_]{1,15}$/;

/** The rule of `X_USERNAME` in words, for refusals that say what X accepts. */
export const X_USERNAME_RULE = "an X username: 1-15 letters, digits or _, without @";

/** Scopes a patron grants: read the profile; offline.access is not needed (no refresh). */
export const PATRON_SCOPES = ["tweet.read", "users.read"];

/** A user object of `GET /2/users/me` with `user.fields=profile_image_url`. */
export type XUser = { id: string; username: string; name: string; profile_image_url?: string };

/** A post as `POST /2/tweets` answers it (`data`). */
export type XPost = { id: string; text: string; edit_history_tweet_ids?: string[] };

/** A user with `user.fields=public_metrics` (PROTOCOLS.md section 3). */
export type XUserWithMetrics = XUser & {
  public_metrics: {
    followers_count: number;
    following_count: number;
    tweet_count: number;
    listed_count: number;
    like_count?: number;
  };
};

/** A post of a user timeline with `tweet.fields=created_at,referenced_tweets,public_metrics`. */
export type XTimelinePost = XPost & {
  created_at?: string;
  author_id?: string;
  referenced_tweets?: { type: "retweeted" | "quoted" | "replied_to"; id: string }[];
  public_metrics?: Record<string, number>;
};

/** `GET /2/users/:id/tweets`: newest first; `data` is absent when there is nothing. */
export type XTimeline = {
  data?: XTimelinePost[];
  meta: {
    result_count: number;
    newest_id?: string;
    oldest_id?: string;
    next_token?: string;
  };
  /** With `expansions=author_id`: the author, with `public_metrics` when `user.fields` asks. */
  includes?: {
    users?: { id: string; username: string; public_metrics?: { followers_count: number } }[];
  };
};

/** X API access tiers (the operator's plan); `pay-per-use` is X's current plan, without tiers. */
export const X_API_TIERS = ["free", "basic", "pro", "pay-per-use"] as const;
export type XApiTier = (typeof X_API_TIERS)[number];
/** The two reads of the social poller, as X's rate-limit tables name them. */
export type XReadEndpoint = "userByUsername" | "userTweets";
export type XWindow = { limit: number; windowSeconds: number };

/**
 * What one app token (bearer, app-only) may ask of each read per window, by tier: X's "Rate
 * limits" page (xdevplatform/docs `x-api/fundamentals/rate-limits.mdx`, the tiered table at
 * commit 3a8ec678, the pay-per-use table at 0bfed9f0; docs/upstreams.md "X"). Basic's user
 * lookup is counted over 24 hours, every other window is 15 minutes.
 */
export const X_RATE_LIMITS: Record<XApiTier, Record<XReadEndpoint, XWindow>> = {
  free: {
    userByUsername: { limit: 3, windowSeconds: 900 },
    userTweets: { limit: 1, windowSeconds: 900 },
  },
  basic: {
    userByUsername: { limit: 500, windowSeconds: 86_400 },
    userTweets: { limit: 10, windowSeconds: 900 },
  },
  pro: {
    userByUsername: { limit: 300, windowSeconds: 900 },
    userTweets: { limit: 1_500, windowSeconds: 900 },
  },
  "pay-per-use": {
    userByUsername: { limit: 300, windowSeconds: 900 },
    userTweets: { limit: 10_000, windowSeconds: 900 },
  },
};

// The answers the clients read, checked (services/http.ts parseUpstream): a post or a profile
// that does not match never reaches the database.
const XUserSchema = z.looseObject({
  id: z.string().min(1),
  username: z.string().min(1),
  name: z.string(),
  profile_image_url: z.string().optional(),
});
const XPostSchema = z.looseObject({
  id: z.string().min(1),
  text: z.string(),
  edit_history_tweet_ids: z.array(z.string()).optional(),
});

/** Schemas of X's answers, by endpoint. */
export const XAnswers = {
  me: z.looseObject({ data: XUserSchema }),
  post: z.looseObject({ data: XPostSchema }),
  userByUsername: z.looseObject({
    data: XUserSchema.extend({
      public_metrics: z.looseObject({
        followers_count: z.number().int().min(0),
        following_count: z.number().int().min(0),
        tweet_count: z.number().int().min(0),
        listed_count: z.number().int().min(0),
        like_count: z.number().int().min(0).optional(),
      }),
    }),
  }),
  userTweets: z.looseObject({
    data: z
      .array(
        XPostSchema.extend({
          created_at: z.string().optional(),
          author_id: z.string().optional(),
          referenced_tweets: z
            .array(
              z.looseObject({
                type: z.enum(["retweeted", "quoted", "replied_to"]),
                id: z.string(),
              }),
            )
            .optional(),
          public_metrics: z.record(z.string(), z.number()).optional(),
        }),
      )
      .optional(),
    meta: z.looseObject({
      result_count: z.number().int().min(0),
      newest_id: z.string().optional(),
      oldest_id: z.string().optional(),
      next_token: z.string().optional(),
    }),
    includes: z
      .looseObject({
        users: z
          .array(
            z.looseObject({
              id: z.string(),
              username: z.string(),
              public_metrics: z
                .looseObject({ followers_count: z.number().int().min(0) })
                .optional(),
            }),
          )
          .optional(),
      })
      .optional(),
  }) satisfies z.ZodType<XTimeline>,
};
