import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COOKIES } from "./middleware/session/cookies.ts";
import { createSession, revokeSession } from "./middleware/session/store.ts";
import { type TestApp, testApp } from "./testing/app.ts";
import { freshIp, requestAs } from "./testing/client.ts";
import { startTestDatabase, type TestDatabase } from "./testing/postgres.ts";

// A signed-in wallet gets the authenticated budget (api/AGENT.md "Limits": per key or
// session), counted per wallet, not the anonymous one of its IP.

let db: TestDatabase;
let t: TestApp;
beforeAll(async () => {
  db = await startTestDatabase();
  t = await testApp(db, { rateLimit: { unauthenticated: 3, authenticated: 5 } });
}, 60_000);
afterAll(() => db?.stop());

const wallet = (n: number) => privateKeyToAccount(`0x${String(n).padStart(64, "0")}`).address;

async function hit(ip: string, cookie?: string) {
  const res = await requestAs(t.app, "/v2/agents", {
    ip,
    init: cookie ? { headers: { cookie } } : undefined,
  });
  await res.arrayBuffer();
  return {
    status: res.status,
    limit: res.headers.get("ratelimit-limit"),
    remaining: res.headers.get("ratelimit-remaining"),
  };
}

describe("the rate budget of a wallet session", () => {
  it("is the authenticated budget, per wallet, apart from its IP's anonymous one", async () => {
    const ip = freshIp();
    const address = wallet(1);
    const one = await createSession(db.sql, { kind: "siwe", address });
    const two = await createSession(db.sql, { kind: "siwe", address });
    const cookie = (id: string) => `${COOKIES.siwe}=${id}`;
    // Five for the wallet, from either of its sessions and any IP; the sixth is refused.
    const signedIn = [
      await hit(ip, cookie(one.id)),
      await hit(ip, cookie(two.id)),
      await hit(freshIp(), cookie(one.id)),
      await hit(ip, cookie(one.id)),
      await hit(ip, cookie(two.id)),
      await hit(ip, cookie(one.id)),
    ];
    expect(signedIn.map((r) => [r.status, r.limit, r.remaining])).toEqual([
      [200, "5", "4"],
      [200, "5", "3"],
      [200, "5", "2"],
      [200, "5", "1"],
      [200, "5", "0"],
      [429, "5", "0"],
    ]);
    // The IP's anonymous budget was not touched; another wallet has its own.
    expect(await hit(ip)).toMatchObject({ status: 200, limit: "3", remaining: "2" });
    const other = await createSession(db.sql, { kind: "siwe", address: wallet(2) });
    expect(await hit(ip, cookie(other.id))).toMatchObject({
      status: 200,
      limit: "5",
      remaining: "4",
    });
  });

  it("an unknown or ended session is anonymous", async () => {
    const ip = freshIp();
    const s = await createSession(db.sql, { kind: "siwe", address: wallet(3) });
    const [row] = await db.sql<{ id_hash: Buffer }[]>`select id_hash from app.sessions
      where address = ${wallet(3).toLowerCase()}`;
    await revokeSession(db.sql, (row as { id_hash: Buffer }).id_hash);
    expect(await hit(ip, `${COOKIES.siwe}=${s.id}`)).toMatchObject({ limit: "3", remaining: "2" });
    expect(await hit(ip, `${COOKIES.siwe}=nope`)).toMatchObject({ limit: "3", remaining: "1" });
  });
});
