import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../env.ts";
import { HttpError, renderError } from "../../errors.ts";
import { bodyLimit } from "./index.ts";

const MAX = 1024;

function app() {
  const a = new Hono<AppEnv>().use(bodyLimit({ maxBytes: MAX }));
  a.post("/echo", async (c) => c.text(await c.req.text()));
  // As Hono's JSON validator does: any read failure becomes a bare 400.
  a.post("/json", async (c) =>
    c.json(
      await c.req.json().catch(() => {
        throw new HTTPException(400, { message: "Malformed JSON in request body" });
      }),
    ),
  );
  a.post("/protected", async (c) => {
    // As a key lookup does: the refusal comes after a round trip, not synchronously.
    await new Promise((r) => setTimeout(r, 20));
    if (c.req.header("authorization") !== "Bearer good")
      throw new HttpError("not_authenticated", { message: "no" });
    return c.text(await c.req.text());
  });
  a.onError((e, c) => renderError(c, e));
  return a;
}

/** A body streamed without Content-Length (chunked), as a client may send it. */
function chunked(size: number) {
  const chunk = new Uint8Array(256).fill(120);
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= size) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

describe("bodyLimit", () => {
  it("passes a body within the limit through unchanged", async () => {
    const res = await app().request("/echo", { method: "POST", body: "x".repeat(MAX) });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("x".repeat(MAX));
  });

  it("refuses a body over the limit with 413, declared or streamed", async () => {
    const declared = await app().request("/echo", { method: "POST", body: "x".repeat(MAX + 1) });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ ok: false, error: "payload_too_large" });
    const streamed = await app().request("/echo", {
      method: "POST",
      body: chunked(MAX * 4),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it("answers 413 even where a parser swallowed the read error", async () => {
    const res = await app().request("/json", { method: "POST", body: "x".repeat(MAX * 2) });
    expect(res.status).toBe(413);
  });

  it("lets a protected route refuse a bad key with 401 before it looks at the body", async () => {
    const big = "x".repeat(MAX * 10);
    const bad = await app().request("/protected", { method: "POST", body: big });
    expect(bad.status).toBe(401);
    const good = await app().request("/protected", {
      method: "POST",
      body: big,
      headers: { authorization: "Bearer good" },
    });
    expect(good.status).toBe(413);
  });
});
