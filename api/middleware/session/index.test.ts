import { createHash } from "node:crypto";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../../env.ts";
import { renderError } from "../../errors.ts";
import { startTestDatabase, type TestDatabase } from "../../testing/postgres.ts";
import { requireSession, siweSession } from "./index.ts";
import { createSession, revokeSession } from "./store.ts";

let db: TestDatabase;
let app: Hono<AppEnv>;
beforeAll(async () => {
  db = await startTestDatabase();
  app = new Hono<AppEnv>();
  app.get("/me", requireSession({ sql: db.sql, kind: "siwe" }), (c) =>
    c.json({ address: siweSession(c).address, principal: c.get("principal") }),
  );
  app.onError((e, c) => renderError(c, e));
}, 60_000);
afterAll(() => db?.stop());

const me = (cookie?: string) => app.request("/me", { headers: cookie ? { cookie } : {} });
const address = "0x00000000000000000000000000000000000000aa" as const;

describe("createSession", () => {
  it("drops expired sessions at a sign-in, and keeps live and revoked-but-unexpired ones", async () => {
    const old = await createSession(db.sql, { kind: "siwe", address });
    const revoked = await createSession(db.sql, { kind: "siwe", address });
    const hashOf = (id: string) => createHash("sha256").update(id).digest();
    const stored = async (id: string) =>
      (await db.sql`select 1 from app.sessions where id_hash = ${hashOf(id)}`).length === 1;
    await db.sql`update app.sessions set expires_at = now() - interval '1 second'
      where id_hash = ${hashOf(old.id)}`;
    await revokeSession(db.sql, hashOf(revoked.id));
    const live = await createSession(db.sql, { kind: "siwe", address });
    expect(await stored(old.id)).toBe(false);
    expect(await stored(revoked.id)).toBe(true);
    expect((await me(`siwe_session=${live.id}`)).status).toBe(200);
  });
});

describe("requireSession", () => {
  it("sets the session and the principal for a live cookie", async () => {
    const s = await createSession(db.sql, { kind: "siwe", address });
    const r = await me(`siwe_session=${s.id}`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ address, principal: { kind: "user", id: address } });
  });

  it("refuses a missing, unknown, other-kind or ended cookie with 401 not_authenticated", async () => {
    const patron = await db.sql`insert into app.patrons (x_id, x_handle, display_name)
      values ('1', 'p', 'P') returning patron_id`;
    const p = await createSession(db.sql, { kind: "patron", patronId: patron[0]?.patron_id });
    const ended = await createSession(db.sql, { kind: "siwe", address });
    const [row] = await db.sql`select id_hash from app.sessions order by created_at desc limit 1`;
    await revokeSession(db.sql, Buffer.from(row?.id_hash));
    for (const cookie of [
      undefined,
      "siwe_session=unknown",
      `siwe_session=${p.id}`,
      `siwe_session=${ended.id}`,
    ]) {
      const r = await me(cookie);
      expect(r.status, cookie).toBe(401);
      expect(await r.json()).toMatchObject({ error: "not_authenticated" });
    }
  });
});
