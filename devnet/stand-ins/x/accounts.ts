import { existsSync, readFileSync } from "node:fs";
import { writeJsonAtomic } from "../../../lib/json-file.ts";
import type {
  XPost,
  XTimelinePost,
  XUser,
  XUserWithMetrics,
} from "../../../services/x/protocol.ts";

type Post = XTimelinePost & { author_id: string };

/** A post's `public_metrics` as X writes them when `tweet.fields` asks (PROTOCOLS.md 3). */
export const NO_METRICS = {
  retweet_count: 0,
  reply_count: 0,
  like_count: 0,
  quote_count: 0,
  bookmark_count: 0,
  impression_count: 0,
};
export type PostMetrics = typeof NO_METRICS;
/** A post made through `POST /2/tweets` (what `/stand-in/tweets` lists). */
export type ApiTweet = XPost & { authorId: string };
/** What `<data dir>/x/state.json` holds. */
type State = { users: XUserWithMetrics[]; posts: Post[]; tweets: ApiTweet[]; next: string };

// X's epoch (2010-11-04), the origin of its snowflake ids.
const X_EPOCH_MS = 1_288_834_974_657n;

/**
 * Accounts and their posts, shared by posting (`POST /2/tweets`) and reading timelines. With
 * a `statePath` they are written to disk after every change (a temporary file, then a rename:
 * a stand-in killed mid-write keeps the previous state whole) and read back on start, so a
 * restarted stand-in serves the same accounts, followers and posts, as X would.
 *
 * @example
 * const t = new Timelines(join(dataDir, "x", "state.json"));
 * t.post(t.upsertUser({ username: "agent_one", followers: 10 }), "gm");
 */
export class Timelines {
  private readonly users = new Map<string, XUserWithMetrics>();
  private readonly posts: Post[] = [];
  private readonly tweets: ApiTweet[] = [];
  // Snowflake-like, as X's ids are (ms since X's epoch, shifted by 22 bits), and never below
  // the saved counter: a restarted stand-in hands out ids above any `since_id` seen before.
  private next = (BigInt(Date.now()) - X_EPOCH_MS) << 22n;
  private readonly statePath?: string;

  constructor(statePath?: string) {
    this.statePath = statePath;
    if (!statePath || !existsSync(statePath)) return;
    const saved = JSON.parse(readFileSync(statePath, "utf8")) as State;
    for (const u of saved.users) this.users.set(u.username.toLowerCase(), u);
    this.posts.push(...saved.posts);
    this.tweets.push(...saved.tweets);
    if (BigInt(saved.next) > this.next) this.next = BigInt(saved.next);
  }

  private save(): void {
    if (!this.statePath) return;
    const state: State = {
      users: [...this.users.values()],
      posts: this.posts,
      tweets: this.tweets,
      next: String(this.next),
    };
    writeJsonAtomic(this.statePath, state);
  }

  /** Creates or updates an account by username (test and seed control). */
  upsertUser(u: { username: string; name?: string; followers?: number; id?: string }) {
    const key = u.username.toLowerCase();
    const cur = this.users.get(key);
    const user: XUserWithMetrics = {
      id: cur?.id ?? u.id ?? String(1_600_000_000_000_000_000n + BigInt(this.users.size)),
      username: cur?.username ?? u.username,
      name: u.name ?? cur?.name ?? u.username,
      public_metrics: {
        followers_count: u.followers ?? cur?.public_metrics.followers_count ?? 0,
        following_count: cur?.public_metrics.following_count ?? 0,
        tweet_count: cur?.public_metrics.tweet_count ?? 0,
        listed_count: 0,
      },
    };
    this.users.set(key, user);
    this.save();
    return user;
  }

  byUsername(username: string) {
    return this.users.get(username.toLowerCase());
  }

  byId(id: string) {
    for (const u of this.users.values()) if (u.id === id) return u;
    return undefined;
  }

  /** A new post by `author` (an id of a known or outside user); ids only increase. */
  post(author: XUser, text: string, replyTo?: string) {
    const p = this.add(author, text, replyTo);
    this.save();
    return p;
  }

  private add(author: XUser, text: string, replyTo?: string) {
    const id = String(this.next++);
    const p = {
      id,
      text,
      edit_history_tweet_ids: [id],
      created_at: new Date().toISOString(),
      author_id: author.id,
      ...(replyTo ? { referenced_tweets: [{ type: "replied_to" as const, id: replyTo }] } : {}),
    };
    this.posts.push(p);
    const u = this.byUsername(author.username);
    if (u) u.public_metrics.tweet_count++;
    return p;
  }

  /** A post made through the API (`POST /2/tweets`): on the author's timeline, and listed. */
  tweet(author: XUser, text: string): ApiTweet {
    const p = this.add(author, text);
    const t = { id: p.id, text: p.text, edit_history_tweet_ids: [p.id], authorId: author.id };
    this.tweets.push(t);
    this.save();
    return t;
  }

  /**
   * Sets a post's engagement counts (test and seed control): X counts likes, replies, reposts,
   * quotes, bookmarks and impressions itself; the stand-in keeps what it is told. Unnamed
   * counts keep their value (0 at first). Undefined when no post has this id.
   */
  engage(id: string, counts: Partial<PostMetrics>): PostMetrics | undefined {
    const p = this.posts.find((x) => x.id === id);
    if (!p) return undefined;
    const m = { ...NO_METRICS, ...(p.public_metrics as PostMetrics | undefined), ...counts };
    p.public_metrics = m;
    this.save();
    return m;
  }

  apiTweets(): readonly ApiTweet[] {
    return this.tweets;
  }

  all() {
    return this.posts;
  }

  /** A user's timeline, newest first, after `sinceId`, from the page `token` names. */
  timeline(userId: string, o: { sinceId?: string; token?: string; max: number }) {
    const mine = this.posts
      .filter((p) => p.author_id === userId && (!o.sinceId || BigInt(p.id) > BigInt(o.sinceId)))
      .reverse();
    const start = o.token ? Number(o.token) : 0;
    const page = mine.slice(start, start + o.max);
    return {
      ...(page.length ? { data: page } : {}),
      meta: {
        result_count: page.length,
        ...(page.length ? { newest_id: page[0]?.id, oldest_id: page.at(-1)?.id } : {}),
        ...(start + o.max < mine.length ? { next_token: String(start + o.max) } : {}),
      },
    };
  }
}
