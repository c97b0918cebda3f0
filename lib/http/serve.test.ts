// The one way our HTTP servers listen and stop: a request in flight finishes within the grace
// period, one that outlasts it is cut, a taken port is an error, and port 0 names the free port.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { serveHttp } from "./serve.ts";

const slowApp = (ms: number) =>
  new Hono().get("/slow", async (c) => {
    await new Promise((r) => setTimeout(r, ms));
    return c.text("done");
  });

describe("serveHttp", () => {
  it("lets a request in flight finish within the grace period", async () => {
    const s = await serveHttp({
      fetch: slowApp(200).fetch,
      host: "127.0.0.1",
      port: 0,
      shutdownGraceMs: 5_000,
    });
    const answer = fetch(`http://127.0.0.1:${s.port}/slow`).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 50));
    await s.close();
    expect(await answer).toBe("done");
  });

  it("cuts a request that outlasts the grace period, and close still resolves", async () => {
    const s = await serveHttp({
      fetch: slowApp(10_000).fetch,
      host: "127.0.0.1",
      port: 0,
      shutdownGraceMs: 100,
    });
    const answer = fetch(`http://127.0.0.1:${s.port}/slow`).then(
      (r) => r.text(),
      (e: unknown) => e,
    );
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await s.close();
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(await answer).toBeInstanceOf(Error);
  });

  it("rejects a port that is taken", async () => {
    const a = await serveHttp({ fetch: slowApp(0).fetch, host: "127.0.0.1", port: 0 });
    await expect(
      serveHttp({ fetch: slowApp(0).fetch, host: "127.0.0.1", port: a.port }),
    ).rejects.toMatchObject({ code: "EADDRINUSE" });
    await a.close();
  });
});
