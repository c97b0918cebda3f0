import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../env.ts";
import { clientIp } from "./index.ts";

function appWith(trustProxy: number) {
  const app = new Hono<AppEnv>().use(clientIp({ trustProxy }));
  app.get("/ip", (c) => c.text(c.get("clientIp")));
  return async (xff: string | undefined, socket = "203.0.113.7") =>
    (
      await app.request(
        "/ip",
        { headers: xff ? { "x-forwarded-for": xff } : {} },
        { incoming: { socket: { remoteAddress: socket } } },
      )
    ).text();
}

describe("clientIp", () => {
  it("uses the socket's peer and ignores X-Forwarded-For by default", async () => {
    const ip = appWith(0);
    expect(await ip("1.2.3.4")).toBe("203.0.113.7");
    expect(await ip(undefined, "::ffff:198.51.100.4")).toBe("198.51.100.4");
  });

  it("with N trusted proxies reads the N-th entry from the right", async () => {
    expect(await appWith(1)("6.6.6.6, 1.2.3.4")).toBe("1.2.3.4");
    expect(await appWith(2)("6.6.6.6, 1.2.3.4, 10.0.0.2")).toBe("1.2.3.4");
    // A client cannot choose its IP by prepending entries.
    expect(await appWith(1)("9.9.9.9, 8.8.8.8, 1.2.3.4")).toBe("1.2.3.4");
    expect(await appWith(1)(undefined)).toBe("203.0.113.7");
  });
});
