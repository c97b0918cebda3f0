/** Paths of X's OAuth 2.0 and API v2 that the service uses (PROTOCOLS.md section 3). */
export const X_PATHS = {
  /** On the web host (x.com). */
  authorize: "/i/oauth2/authorize",
  /** On the API host (api.x.com). */
  token: "/2/oauth2/token",
  me: "/2/users/me",
  tweets: "/2/tweets",
} as const;

/** Scopes a patron grants: read the profile; offline.access is not needed (no refresh). */
export const PATRON_SCOPES = ["tweet.read", "users.read"];

/** A user object of `GET /2/users/me` with `user.fields=profile_image_url`. */
export type XUser = { id: string; username: string; name: string; profile_image_url?: string };

/** A post as `POST /2/tweets` answers it (`data`). */
export type XPost = { id: string; text: string; edit_history_tweet_ids?: string[] };
