import { type Address, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestChain, type TestChain } from "../../contracts/test/helpers.ts";
import { samplePng } from "../../devnet/stand-ins/four-meme/sample-image.ts";
import { serveWorld, type WorldServer } from "../../test/helpers/world/serve.ts";
import { COOKIES } from "../middleware/session/cookies.ts";
import { createSession } from "../middleware/session/store.ts";
import { type TestApp, type TestBody, testApp } from "../testing/app.ts";
import { requestAs } from "../testing/client.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";

// what: A deposit launch whose relayer transaction fails (the service's relayer cannot pay its gas) answers 502 with fixed words and its launchRequestId, never the cause; GET /v2/admin/launches/{id} (operator token) shows the cause, and the relayer's address stays out of the answer

const ADMIN = "operator-token-0123456789abcdef0123456789";
/** The service's own relayer, never funded here: every send fails on its balance. */
const relayer = privateKeyToAccount(`0x${"22".repeat(32)}`);
let chain: TestChain;
let db: TestDatabase;
let t: TestApp;
/** The launch image at a public name of the world (npm test): no trusted origin. */
let image: WorldServer;
let imageOrigin: string;

beforeAll(async () => {
  [chain, db] = await Promise.all([startTestChain(), startTestDatabase()]);
  image = await serveWorld("images.example.net", (_, res) => {
    res.writeHead(200, { "content-type": "image/png" }).end(samplePng());
  });
  imageOrigin = image.origin;
  t = await testApp(db, {}, "test", {
    adminToken: ADMIN,
    sessions: {
      deposit: {
        sql: db.sql,
        client: chain.publicClient,
        relayer,
        factory: chain.record.contracts.launchFactory as Address,
        chainId: chain.record.chainId,
        trustedImageOrigins: [],
        budget: { perClientPerHour: 10, perDayWei: parseEther("1") },
      },
    },
  });
}, 180_000);

afterAll(async () => {
  await Promise.all([chain?.stop(), db?.stop(), image?.close()]);
});

async function call(path: string, init: RequestInit) {
  const res = await requestAs(t.app, path, { init });
  return { status: res.status, body: (await res.json()) as TestBody };
}

describe("a deposit launch that fails", () => {
  it("answers fixed words and its launchRequestId; the operator sees the cause", async () => {
    const creator = (await chain.fundedAccount("1")).address.toLowerCase() as Address;
    const session = await createSession(db.sql, { kind: "siwe", address: creator });
    const now = Number((await chain.publicClient.getBlock()).timestamp);
    const r = await call("/v2/launches", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        cookie: `${COOKIES.siwe}=${session.id}`,
        "idempotency-key": "d1",
      },
      body: JSON.stringify({
        tier: "0",
        name: "Relayer Dry",
        symbol: "DRY",
        description: "A launch the relayer cannot pay for.",
        image: `${imageOrigin}/dry.png`,
        closeTimestamp: now + 3600,
        buyTaxBps: 100,
        sellTaxBps: 100,
      }),
    });
    expect(t.check("/v2/launches", r.status, r.body, "post")).toEqual([]);
    const id = r.body.launchRequestId as string;
    expect(r).toEqual({
      status: 502,
      body: {
        ok: false,
        error: "upstream_error",
        message: `the relayer's createLaunch transaction failed; nothing was created; retry after 1 s, 2 s, 4 s with the same Idempotency-Key, then quote launch request ${id} to the operator`,
        launchRequestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        requestId: expect.any(String),
      },
    });
    const text = JSON.stringify(r.body).toLowerCase();
    for (const leak of ["balance", "gas", relayer.address.toLowerCase(), "http", "127.0.0.1"])
      expect(text).not.toContain(leak);

    const op = await call(`/v2/admin/launches/${id}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(t.check("/v2/admin/launches/{launchId}", op.status, op.body)).toEqual([]);
    expect(op.body.data).toMatchObject({
      launchId: id,
      kind: "deposit",
      status: "failed",
      creator,
      agentId: null,
    });
    expect(op.body.data.cause).toMatch(/balance|funds/i);
  });
});
