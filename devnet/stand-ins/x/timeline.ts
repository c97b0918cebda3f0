import type { Hono } from "hono";
import {
  X_PATHS,
  X_RATE_LIMITS,
  type XApiTier,
  type XReadEndpoint,
} from "../../../services/x/protocol.ts";
import { NO_METRICS, type PostMetrics, type Timelines } from "./accounts.ts";

const problem = (title: string, detail: string, status: number) => ({
  title,
  detail,
  type: "about:blank",
  status,
});

type Window = { limit: number; remaining: number; reset: number };

/** How the stand-in limits reads: X's windows for a tier, optionally with lower counts. */
export type XLimitOptions = {
  /** The app's access tier (X_API_TIER): its documented windows (services/x/protocol.ts). */
  tier?: XApiTier;
  /** Lower counts per window (tests of the 429 back-off). */
  counts?: Partial<Record<XReadEndpoint, number>>;
  /** Multiplies every window (test mode's POLL_TIME_SCALE), as the pollers' budgets are. */
  timeScale?: number;
};

/**
 * The reads of X API v2 the social poller uses, with X's rate-limit headers and 429s:
 * `GET /2/users/by/username/:username` and `GET /2/users/:id/tweets` (`since_id`,
 * `max_results` 5..100, `pagination_token`, `expansions=author_id` with `user.fields`).
 * Each endpoint has the app's window of its tier: X counts a window from its first call to its
 * reset (the `x-rate-limit-reset` it sends), and answers 429 with those headers past the limit.
 */
export function registerTimelineRoutes(
  app: Hono,
  t: Timelines,
  o: { authorized: (header: string | undefined) => boolean; limits?: XLimitOptions },
) {
  const tier = X_RATE_LIMITS[o.limits?.tier ?? "basic"];
  const scale = o.limits?.timeScale ?? 1;
  const limitOf = (e: XReadEndpoint) => o.limits?.counts?.[e] ?? tier[e].limit;
  const windowOf = (e: XReadEndpoint) => Math.max(1, Math.round(tier[e].windowSeconds * scale));
  const windows = new Map<string, Window>();
  const counts: Record<string, number> = {};
  /** Counts one call against the endpoint's window; the headers X sends either way. */
  const take = (endpoint: XReadEndpoint) => {
    const now = Math.floor(Date.now() / 1000);
    let w = windows.get(endpoint);
    if (!w || w.reset <= now) {
      const limit = limitOf(endpoint);
      w = { limit, remaining: limit, reset: now + windowOf(endpoint) };
      windows.set(endpoint, w);
    }
    const ok = w.remaining > 0;
    if (ok) w.remaining--;
    const name = ok ? endpoint : `${endpoint}:429`;
    counts[name] = (counts[name] ?? 0) + 1;
    return {
      ok,
      headers: {
        "x-rate-limit-limit": String(w.limit),
        "x-rate-limit-remaining": String(w.remaining),
        "x-rate-limit-reset": String(w.reset),
      },
    };
  };

  app.get(`${X_PATHS.userByUsername}/:username`, (c) => {
    if (!o.authorized(c.req.header("authorization")))
      return c.json(problem("Unauthorized", "Unauthorized", 401), 401);
    const r = take("userByUsername");
    for (const [k, v] of Object.entries(r.headers)) c.header(k, v);
    if (!r.ok) return c.json(problem("Too Many Requests", "Too Many Requests", 429), 429);
    const username = c.req.param("username");
    if (!/^[A-Za-z0-9_]{1,15}$/.test(username)) {
      return c.json(
        problem("Invalid Request", "The `username` query parameter value is not valid", 400),
        400,
      );
    }
    const u = t.byUsername(username);
    if (!u) {
      return c.json({
        errors: [
          {
            value: username,
            detail: `Could not find user with username: [${username}].`,
            title: "Not Found Error",
            resource_type: "user",
            parameter: "username",
            resource_id: username,
            type: "https://api.twitter.com/2/problems/resource-not-found",
          },
        ],
      });
    }
    const fields = (c.req.query("user.fields") ?? "").split(",");
    const { public_metrics, ...rest } = u;
    return c.json({ data: fields.includes("public_metrics") ? u : rest });
  });

  // Test control: timelines hang (until the server is stopped), so a test can cut X mid-poll.
  let hang = false;
  app.put("/stand-in/hang", async (c) => {
    hang = ((await c.req.json()) as { on: boolean }).on;
    return c.json({ ok: true });
  });
  app.get("/2/users/:id/tweets", (c) => {
    if (hang) return new Promise<Response>(() => {});
    if (!o.authorized(c.req.header("authorization")))
      return c.json(problem("Unauthorized", "Unauthorized", 401), 401);
    const r = take("userTweets");
    for (const [k, v] of Object.entries(r.headers)) c.header(k, v);
    if (!r.ok) return c.json(problem("Too Many Requests", "Too Many Requests", 429), 429);
    const q = c.req.query();
    const max = Number(q.max_results ?? 10);
    if (!Number.isInteger(max) || max < 5 || max > 100) {
      return c.json(problem("Invalid Request", "max_results must be between 5 and 100", 400), 400);
    }
    if (q.since_id !== undefined && !/^[0-9]{1,19}$/.test(q.since_id)) {
      return c.json(problem("Invalid Request", "since_id is not valid", 400), 400);
    }
    const page = t.timeline(c.req.param("id"), {
      sinceId: q.since_id,
      token: q.pagination_token,
      max,
    });
    // X writes public_metrics only when asked: the counts set by `/stand-in/posts/:id/metrics`,
    // zero for a post nobody engaged with.
    const asked = (q["tweet.fields"] ?? q["post.fields"] ?? "")
      .split(",")
      .includes("public_metrics");
    if (!page.data) return c.json(page);
    // `expansions=author_id`: the author in `includes.users`, with `user.fields` as on a lookup,
    // so a timeline read also brings the follower count (no user lookup needed).
    const author = (q.expansions ?? "").split(",").includes("author_id")
      ? t.byId(c.req.param("id"))
      : undefined;
    const userFields = (q["user.fields"] ?? "").split(",");
    const includes = author
      ? {
          includes: {
            users: [
              userFields.includes("public_metrics")
                ? author
                : { ...author, public_metrics: undefined },
            ],
          },
        }
      : {};
    return c.json({
      ...page,
      data: page.data.map(({ public_metrics, ...d }) =>
        asked ? { ...d, public_metrics: { ...NO_METRICS, ...public_metrics } } : d,
      ),
      ...includes,
    });
  });

  /** Test control: exhaust an endpoint's window now (its reset `inSeconds` from now). */
  app.put("/stand-in/rate-limit", async (c) => {
    const b = (await c.req.json()) as {
      endpoint: XReadEndpoint;
      inSeconds: number;
    };
    windows.set(b.endpoint, {
      limit: limitOf(b.endpoint),
      remaining: 0,
      reset: Math.floor(Date.now() / 1000) + b.inSeconds,
    });
    return c.json({ ok: true });
  });
  app.get("/stand-in/requests", (c) => c.json(counts));
  /** Test and seed control: a post's engagement counts (any of PostMetrics' keys). */
  app.put("/stand-in/posts/:id/metrics", async (c) => {
    const b = (await c.req.json()) as Partial<PostMetrics>;
    const bad = Object.entries(b).find(
      ([k, v]) => !(k in NO_METRICS) || !Number.isInteger(v) || (v as number) < 0,
    );
    if (bad) return c.json(problem("Invalid Request", `bad count ${bad[0]}`, 400), 400);
    const m = t.engage(c.req.param("id"), b);
    if (!m) return c.json(problem("Not Found", "no such post", 404), 404);
    return c.json({ data: m });
  });
  app.put("/stand-in/accounts", async (c) => {
    const b = (await c.req.json()) as { username: string; name?: string; followers?: number };
    return c.json({ data: t.upsertUser(b) });
  });
  // Every post of an account, for tests comparing a feed with the whole history.
  app.get("/stand-in/accounts/:username/posts", (c) => {
    const u = t.byUsername(c.req.param("username"));
    if (!u) return c.json(problem("Not Found", "no such account", 404), 404);
    return c.json({ data: t.all().filter((x) => x.author_id === u.id) });
  });
  app.post("/stand-in/accounts/:username/posts", async (c) => {
    const u = t.byUsername(c.req.param("username"));
    if (!u) return c.json(problem("Not Found", "no such account", 404), 404);
    const b = (await c.req.json()) as { text: string; replyTo?: string };
    return c.json({ data: t.post(u, b.text, b.replyTo) }, 201);
  });
}
