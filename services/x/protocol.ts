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
};

/** X's per-window limits (15 min) of the endpoints the service reads, per app token. */
export const X_RATE_LIMITS = { windowSeconds: 900, userByUsername: 300, userTweets: 10_000 };

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
  }) satisfies z.ZodType<XTimeline>,
};
