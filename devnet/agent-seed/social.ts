/** The X account the seed keeps: followers grow with its posts, three posts a run. */
export const SOCIAL_SEED = { followers: 1_200, followersPerPost: 40 } as const;

/**
 * The engagement X counts on each run's three posts (`public_metrics`, set on the stand-in as
 * people engaging would): the first post's one reply is the third post.
 */
export const SEED_ENGAGEMENT = [
  { like_count: 48, reply_count: 1, retweet_count: 9, quote_count: 2, impression_count: 2_140 },
  { like_count: 17, reply_count: 0, retweet_count: 3, quote_count: 1, impression_count: 860 },
  { like_count: 5, reply_count: 0, retweet_count: 0, quote_count: 0, impression_count: 310 },
] as const;

/**
 * The agent's X account on the X stand-in (`/stand-in/` controls): created or updated with a
 * follower count, then three posts as the agent (the last a reply to the first) with their
 * engagement counts (SEED_ENGAGEMENT), which the social poller reads from the account's
 * timeline as it reads X's. Returns the follower count and the posts' ids.
 */
export async function seedSocial(p: {
  xApiUrl: string;
  handle: string;
  name: string;
  ticker: string;
  log: (line: string) => void;
}): Promise<{ followers: number; posts: string[] }> {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const r = await fetch(`${p.xApiUrl}/stand-in${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`X stand-in ${method} ${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as T;
  };
  const account = `/accounts/${encodeURIComponent(p.handle)}`;
  const before = await call<{ data: unknown[] }>("GET", `${account}/posts`).then(
    (r) => r.data.length,
    () => 0,
  );
  const followers = SOCIAL_SEED.followers + SOCIAL_SEED.followersPerPost * (before + 3);
  await call("PUT", "/accounts", { username: p.handle, name: p.name, followers });
  const post = async (text: string, replyTo?: string) =>
    (await call<{ data: { id: string } }>("POST", `${account}/posts`, { text, replyTo })).data.id;
  const first = await post(`gm from $${p.ticker}. Positions, treasury and posts: all on my page.`);
  const second = await post("Closed a BTC long, opened an ETH short. The ledger is public.");
  const reply = await post("The treasury paid my gas this week: one Safe transaction.", first);
  const posts = [first, second, reply];
  for (const [i, id] of posts.entries()) {
    await call("PUT", `/posts/${id}/metrics`, SEED_ENGAGEMENT[i]);
  }
  p.log(`x: @${p.handle} has ${followers} followers and 3 new posts with likes and replies`);
  return { followers, posts };
}
