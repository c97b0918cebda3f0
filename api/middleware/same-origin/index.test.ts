import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../env.ts";
import { renderError } from "../../errors.ts";
import { sameOrigin } from "./index.ts";

const app = new Hono<AppEnv>();
app.post(
  "/w",
  sameOrigin({ origins: ["http://localhost:3000", "https://api.example/base"] }),
  (c) => c.json({ ok: true }),
);
app.onError((e, c) => renderError(c, e));

const post = (headers: Record<string, string>) => app.request("/w", { method: "POST", headers });

describe("sameOrigin", () => {
  it("lets our origins and non-browser clients through", async () => {
    expect((await post({ origin: "http://localhost:3000" })).status).toBe(200);
    expect((await post({ origin: "https://api.example" })).status).toBe(200);
    expect((await post({})).status).toBe(200);
    expect((await post({ "sec-fetch-site": "same-origin" })).status).toBe(200);
  });

  it("refuses other origins, null and cross-site fetches with 403 not_authorized", async () => {
    const cases: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "http://localhost:3001" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
    ];
    for (const h of cases) {
      const r = await post(h);
      expect(r.status, JSON.stringify(h)).toBe(403);
      expect(await r.json()).toMatchObject({ ok: false, error: "not_authorized" });
    }
  });
});
