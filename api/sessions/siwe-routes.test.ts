import { createHash } from "node:crypto";
import { mnemonicToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVNET_MNEMONIC, type StartAnvilReturnType, startAnvil } from "../../devnet/anvil.ts";
import { freePort } from "../../lib/local/net.ts";
import { type TestApp, testApp } from "../testing/app.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";

// SIWE over a real Postgres and a real (bare) anvil for the EIP-1271/6492 validator call.
// Contract wallets (a Safe) are signed in against the full devnet in test/sessions/.

const WEB = "http://localhost:3000";
const API = "http://127.0.0.1:3001";
const alice = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 5 });
const bob = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 6 });

let db: TestDatabase;
let anvil: StartAnvilReturnType;
let t: TestApp;

beforeAll(async () => {
  db = await startTestDatabase();
  anvil = await startAnvil({ port: await freePort(), blockTime: 0 });
  t = await testApp(db, { rpcUrls: [anvil.rpcUrl], webUrl: WEB, apiUrl: API });
}, 60_000);
afterAll(async () => {
  await anvil?.stop();
  await db?.stop();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  t.get(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

async function nonceFor(address: string) {
  const r = await t.get(`/auth/nonce?address=${address}`);
  expect(r.status).toBe(200);
  expect(t.check("/auth/nonce", 200, r.body)).toEqual([]);
  return r.body.data.nonce as string;
}

type Over = Partial<Parameters<typeof createSiweMessage>[0]>;
async function signedMessage(account = alice, over: Over = {}) {
  const message = createSiweMessage({
    domain: "localhost:3000",
    address: account.address,
    statement: "Sign in to the launchpad",
    uri: WEB,
    version: "1",
    chainId: 56,
    nonce: over.nonce ?? (await nonceFor(account.address)),
    issuedAt: new Date(),
    ...over,
  });
  return { message, signature: await account.signMessage({ message }) };
}

const sessionCount = async () =>
  Number((await db.sql`select count(*)::int as n from app.sessions`)[0]?.n);
const cookieOf = (res: Response) => res.headers.get("set-cookie") ?? "";
const sessionCookie = (res: Response) => /siwe_session=([^;]*)/.exec(cookieOf(res))?.[1] ?? "";

async function expectRefused(body: unknown, pattern: RegExp, headers = {}) {
  const before = await sessionCount();
  const r = await post("/auth/verify", body, headers);
  expect(r.status).toBe(401);
  expect(r.body).toMatchObject({ ok: false, error: "not_authenticated" });
  expect(r.body.message).toMatch(pattern);
  expect(t.check("/auth/verify", 401, r.body, "post")).toEqual([]);
  expect(cookieOf(r.res)).toBe("");
  expect(await sessionCount()).toBe(before);
}

describe("GET /auth/nonce", () => {
  it("issues a fresh 128-bit nonce bound to the address, valid 10 minutes", async () => {
    const r = await t.get(`/auth/nonce?address=${alice.address}`);
    const again = await t.get(`/auth/nonce?address=${alice.address}`);
    expect(r.body.data.nonce).not.toBe(again.body.data.nonce);
    const ttl = Date.parse(r.body.data.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
    const [row] =
      await db.sql`select address from app.siwe_nonces where nonce = ${r.body.data.nonce}`;
    expect(row?.address).toBe(alice.address.toLowerCase());
  });

  it("refuses a malformed address with 400", async () => {
    const r = await t.get("/auth/nonce?address=0x1234");
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_failed");
  });
});

describe("POST /auth/verify", () => {
  it("signs an EOA in: HttpOnly Lax cookie for 7 days, only its hash stored", async () => {
    const r = await post("/auth/verify", await signedMessage());
    expect(r.status).toBe(200);
    expect(t.check("/auth/verify", 200, r.body, "post")).toEqual([]);
    expect(r.body.data.address).toBe(alice.address.toLowerCase());
    const cookie = cookieOf(r.res);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)?.[1]);
    expect(maxAge).toBeGreaterThan(7 * 24 * 3600 - 60);
    const id = sessionCookie(r.res);
    expect(id.length).toBeGreaterThanOrEqual(43);
    const rows =
      await db.sql`select id_hash from app.sessions where address = ${alice.address.toLowerCase()}`;
    const hashes = rows.map((x) => Buffer.from(x.id_hash).toString("hex"));
    expect(hashes).toContain(createHash("sha256").update(id).digest("hex"));
    expect(JSON.stringify(rows)).not.toContain(id);

    const me = await t.get("/auth/session", { headers: { cookie: `siwe_session=${id}` } });
    expect(me.status).toBe(200);
    expect(me.body.data.address).toBe(alice.address.toLowerCase());
    expect(t.check("/auth/session", 200, me.body)).toEqual([]);
  });

  it("accepts the API's own origin as domain and URI", async () => {
    const r = await post(
      "/auth/verify",
      await signedMessage(bob, { domain: "127.0.0.1:3001", uri: `${API}/login` }),
    );
    expect(r.status).toBe(200);
  });

  it("refuses a replayed nonce", async () => {
    const signed = await signedMessage();
    expect((await post("/auth/verify", signed)).status).toBe(200);
    await expectRefused(signed, /already used/);
  });

  it("refuses a wrong domain, URI, chain or version", async () => {
    await expectRefused(await signedMessage(alice, { domain: "evil.example" }), /domain/);
    await expectRefused(await signedMessage(alice, { uri: "https://evil.example/" }), /URI/);
    await expectRefused(await signedMessage(alice, { chainId: 1 }), /chain id 1/);
  });

  it("refuses an expired message, a stale one and one not valid yet", async () => {
    await expectRefused(
      await signedMessage(alice, { expirationTime: new Date(Date.now() - 1000) }),
      /expired/,
    );
    await expectRefused(
      await signedMessage(alice, { issuedAt: new Date(Date.now() - 11 * 60_000) }),
      /older/,
    );
    await expectRefused(
      await signedMessage(alice, { notBefore: new Date(Date.now() + 3600_000) }),
      /not valid yet/,
    );
  });

  it("refuses an expired nonce, and a nonce issued for another address", async () => {
    const nonce = await nonceFor(alice.address);
    await db.sql`update app.siwe_nonces set expires_at = now() - interval '1 second' where nonce = ${nonce}`;
    await expectRefused(await signedMessage(alice, { nonce }), /expired/);
    const bobs = await nonceFor(bob.address);
    await expectRefused(await signedMessage(alice, { nonce: bobs }), /another address/);
    // The refused attempt did not burn Bob's nonce.
    expect((await post("/auth/verify", await signedMessage(bob, { nonce: bobs }))).status).toBe(
      200,
    );
  });

  it("refuses a bad signature, and keeps the nonce for the real signer", async () => {
    const signed = await signedMessage(alice);
    const forged = await bob.signMessage({ message: signed.message });
    await expectRefused({ message: signed.message, signature: forged }, /signature/);
    await expectRefused(
      { message: signed.message, signature: `0x${"00".repeat(65)}` },
      /signature/,
    );
    expect((await post("/auth/verify", signed)).status).toBe(200);
  });

  it("refuses text that is not an EIP-4361 message, and a malformed body", async () => {
    await expectRefused({ message: "hello", signature: "0x00" }, /EIP-4361/);
    const r = await post("/auth/verify", { message: "x" });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_failed");
  });

  it("refuses a cross-site Origin with 403 not_authorized", async () => {
    const before = await sessionCount();
    const r = await post("/auth/verify", await signedMessage(), { origin: "https://evil.example" });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ ok: false, error: "not_authorized" });
    expect(t.check("/auth/verify", 403, r.body, "post")).toEqual([]);
    const nul = await post("/auth/verify", await signedMessage(), { origin: "null" });
    expect(nul.status).toBe(403);
    const fetchSite = await post("/auth/verify", await signedMessage(), {
      "sec-fetch-site": "cross-site",
    });
    expect(fetchSite.status).toBe(403);
    expect(await sessionCount()).toBe(before);
    const ours = await post("/auth/verify", await signedMessage(), { origin: WEB });
    expect(ours.status).toBe(200);
  });
});

describe("sessions", () => {
  it("a missing, unknown or ended cookie is 401 not_authenticated", async () => {
    const none = await t.get("/auth/session");
    expect(none.status).toBe(401);
    expect(none.body.error).toBe("not_authenticated");
    expect(t.check("/auth/session", 401, none.body)).toEqual([]);
    const bogus = await t.get("/auth/session", { headers: { cookie: "siwe_session=nope" } });
    expect(bogus.status).toBe(401);

    const signedIn = await post("/auth/verify", await signedMessage());
    const cookie = `siwe_session=${sessionCookie(signedIn.res)}`;
    const crossSite = await t.get("/auth/logout", {
      method: "POST",
      headers: { cookie, origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(403);
    expect((await t.get("/auth/session", { headers: { cookie } })).status).toBe(200);
    const out = await t.get("/auth/logout", { method: "POST", headers: { cookie } });
    expect(out.status).toBe(200);
    expect(cookieOf(out.res)).toMatch(/siwe_session=;/);
    expect((await t.get("/auth/session", { headers: { cookie } })).status).toBe(401);
    expect((await t.get("/auth/logout", { method: "POST", headers: { cookie } })).status).toBe(401);
  });

  it("an expired session is refused", async () => {
    const signedIn = await post("/auth/verify", await signedMessage());
    const id = sessionCookie(signedIn.res);
    await db.sql`update app.sessions set expires_at = now() - interval '1 second'
      where id_hash = ${createHash("sha256").update(id).digest()}`;
    const r = await t.get("/auth/session", { headers: { cookie: `siwe_session=${id}` } });
    expect(r.status).toBe(401);
  });

  it("sets Secure cookies in production, and declares the cookie schemes", async () => {
    const prod = await testApp(
      db,
      { rpcUrls: [anvil.rpcUrl], webUrl: WEB, apiUrl: API },
      "production",
    );
    const r = await prod.get("/auth/verify", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(await signedMessage()),
    });
    expect(r.status).toBe(200);
    expect(cookieOf(r.res)).toMatch(/Secure/);
    const doc = (await t.get("/openapi.json")).body;
    expect(doc.components.securitySchemes.siweSession).toEqual(
      expect.objectContaining({ type: "apiKey", in: "cookie", name: "siwe_session" }),
    );
    expect(doc.components.securitySchemes.patronSession).toEqual(
      expect.objectContaining({ type: "apiKey", in: "cookie", name: "service_session" }),
    );
  });
});
