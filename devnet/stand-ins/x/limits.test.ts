import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { X_RATE_LIMITS, type XApiTier } from "../../../services/x/protocol.ts";
import { createXStandIn } from "./server.ts";

// The stand-in enforces the app-token windows of the tier it is given, as X documents them
// (services/x/protocol.ts X_RATE_LIMITS): the limit-th read of a window answers, the next is
// 429 with X's headers, and each endpoint counts on its own.

const APP = "limits-app-bearer";
const servers: (() => void)[] = [];
afterAll(() => {
  for (const close of servers) close();
});

async function standIn(tier: XApiTier): Promise<string> {
  const app = createXStandIn({
    clientId: "c",
    clientSecret: "secret-1",
    appToken: APP,
    log: pino({ level: "silent" }),
    rateLimits: { tier },
  });
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (i: AddressInfo) =>
      resolve(`http://127.0.0.1:${i.port}`),
    );
    servers.push(() => server.close());
  });
}

const get = (url: string) => fetch(url, { headers: { authorization: `Bearer ${APP}` } });

describe.each(["free", "basic"] as const)("tier %s", (tier) => {
  it("answers 429 with x-rate-limit headers past the tier's window of each read", async () => {
    const url = await standIn(tier);
    await fetch(`${url}/stand-in/accounts`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "limited_one", followers: 5 }),
    });
    const timeline = X_RATE_LIMITS[tier].userTweets;
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i <= timeline.limit; i++) {
      last = await get(`${url}/2/users/1/tweets?max_results=5`);
      statuses.push(last.status);
    }
    expect(statuses.slice(0, timeline.limit).every((s) => s !== 429)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect(last?.headers.get("x-rate-limit-limit")).toBe(String(timeline.limit));
    expect(last?.headers.get("x-rate-limit-remaining")).toBe("0");
    const reset = Number(last?.headers.get("x-rate-limit-reset"));
    expect(reset * 1000).toBeGreaterThan(Date.now());
    expect(reset * 1000).toBeLessThanOrEqual(Date.now() + timeline.windowSeconds * 1000);
    // The user lookup has its own window.
    const lookup = await get(`${url}/2/users/by/username/limited_one?user.fields=public_metrics`);
    expect(lookup.status).toBe(200);
    expect(lookup.headers.get("x-rate-limit-limit")).toBe(
      String(X_RATE_LIMITS[tier].userByUsername.limit),
    );
  });
});
