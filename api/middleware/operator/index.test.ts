import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../env.ts";
import { renderError } from "../../errors.ts";
import { operatorOnly } from "./index.ts";

const appWith = (token: string | undefined) => {
  const app = new Hono<AppEnv>();
  app.get("/op", operatorOnly(token), (c) => c.json({ ok: true }));
  app.onError((e, c) => renderError(c, e));
  return app;
};
const get = (app: Hono<AppEnv>, authorization?: string) =>
  app.request("/op", { headers: authorization ? { authorization } : {} });

describe("operatorOnly", () => {
  it("lets the operator token through", async () => {
    expect((await get(appWith("s3cret"), "Bearer s3cret")).status).toBe(200);
  });

  it("refuses a missing or wrong token with 401 not_authenticated", async () => {
    for (const h of [undefined, "Bearer nope", "s3cret"]) {
      const r = await get(appWith("s3cret"), h);
      expect(r.status, String(h)).toBe(401);
      expect(await r.json()).toMatchObject({ ok: false, error: "not_authenticated" });
    }
  });

  it("answers 404 not_found when no operator token is configured", async () => {
    const r = await get(appWith(undefined), "Bearer anything");
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ ok: false, error: "not_found" });
  });
});
