import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFourMemeClient } from "./four-meme/client.ts";
import { retryAfter, UpstreamError } from "./http.ts";
import { createHyperliquidClient } from "./hyperliquid/client.ts";
import { createSafeTxServiceClient } from "./safe-tx-service/client.ts";
import { createStewardClient } from "./steward/client.ts";
import { createXClient, createXReadClient } from "./x/client.ts";

// Every client of an outside service over real HTTP, against a server that answers 200 with
// JSON the protocol does not allow: each call fails with a typed `bad_response` (not retried,
// not retryable) naming the field, instead of returning the value or crashing later.

let server: Server;
let url: string;
let answer: unknown = {};
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(typeof answer === "string" ? answer : JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function malformed(call: () => Promise<unknown>, body: unknown, field: string) {
  answer = body;
  hits = 0;
  const error = await call().then(
    (v) => v,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  const e = error as UpstreamError;
  expect({ kind: e.kind, retryable: e.retryable, hits }).toEqual({
    kind: "bad_response",
    retryable: false,
    hits: 1,
  });
  // The field, or for a union of shapes the endpoint, is named.
  expect(`${e.message} ${e.details}`).toContain(field);
}

const wallet = "0x00000000000000000000000000000000000000aa";
const safe = "0x00000000000000000000000000000000000000bb";

describe("a malformed upstream answer is a typed bad_response", () => {
  it("steward: a wallet without an address, a transaction without a hash", async () => {
    const steward = createStewardClient({ url, apiKey: "k", tenantId: "t", timeoutMs: 2_000 });
    const agent = { id: "agt_1", tenantId: "t", name: "a", createdAt: "2026-01-01T00:00:00Z" };
    await malformed(
      () => steward.provisionWallet({ agentId: "a" }),
      { ok: true, data: { ...agent, walletAddress: "not-an-address" } },
      "walletAddress",
    );
    // A bare object is not Steward's envelope.
    await malformed(() => steward.getWallet("w"), { ...agent, walletAddress: wallet }, "/agents/w");
    await malformed(
      () => steward.sendTransaction("w", { to: wallet, idempotencyKey: "key-0001" }),
      { ok: true, data: { txId: "t" } },
      "txHash",
    );
    // A 2xx refusal that is neither pending_approval nor outcome_unknown.
    await malformed(
      () => steward.sendTransaction("w", { to: wallet, idempotencyKey: "key-0001" }),
      { ok: false, error: "?", data: { status: "queued" } },
      "txHash",
    );
    await malformed(
      () => steward.signTypedData("w", { domain: {}, types: {}, primaryType: "A", value: {} }),
      { ok: true, data: { signature: "not-hex" } },
      "signature",
    );
  });

  it("four.meme API: code 0 with a create answer missing its signature", async () => {
    const api = createFourMemeClient({ url, timeoutMs: 2_000 });
    await malformed(
      () => api.create("t", {} as never),
      { code: "0", data: { createArg: "0x01" } },
      "signature",
    );
    await malformed(() => api.publicConfig(), { code: "0", data: [] }, "data");
    await malformed(() => api.nonce(wallet), { code: "0", data: null }, "data");
    await malformed(() => api.nonce(wallet), { msg: "no code" }, "code");
  });

  it("X: users/me without a username, a post without an id, a timeline without meta", async () => {
    const x = createXClient({ apiUrl: url, timeoutMs: 2_000 });
    await malformed(() => x.me("t"), { data: { id: "1", name: "n" } }, "username");
    await malformed(() => x.post("t", "hi"), { data: { text: "hi" } }, "id");
    const read = createXReadClient({ apiUrl: url, bearerToken: "b", timeoutMs: 2_000 });
    await malformed(
      () => read.userByUsername("a"),
      { data: { id: "1", username: "a", name: "n", public_metrics: { followers_count: "9" } } },
      "followers_count",
    );
    await malformed(() => read.userTweets("1", { maxResults: 5 }), { data: [] }, "meta");
  });

  it("Hyperliquid: an exchange answer of another shape, a ledger with a bad amount", async () => {
    const hl = createHyperliquidClient({ apiUrl: url, timeoutMs: 2_000, retries: 0 });
    await malformed(
      () => hl.exchange({} as never),
      { status: "ok", response: { type: "order", data: { statuses: [{ filled: {} }] } } },
      "/exchange answer malformed",
    );
    await malformed(
      () => hl.userNonFundingLedgerUpdates(wallet, 0),
      [{ time: 1, hash: "0x12", delta: { type: "deposit", usdc: "1" } }],
      "hash",
    );
  });

  it("Safe Transaction Service: a page without results", async () => {
    const s = createSafeTxServiceClient({ apiUrl: url, timeoutMs: 2_000 });
    await malformed(
      () => s.multisigTransactions(safe, { modifiedGte: new Date(0), limit: 10, offset: 0 }),
      { count: 0, next: null, previous: null },
      "results",
    );
  });

  it("non-JSON is bad_response too, and a well-formed answer passes", async () => {
    const steward = createStewardClient({ url, apiKey: "k", tenantId: "t", timeoutMs: 2_000 });
    answer = "<html>gateway</html>";
    hits = 0;
    await expect(steward.getWallet("w")).rejects.toMatchObject({ kind: "bad_response" });
    answer = {
      ok: true,
      data: {
        id: "agt_1",
        tenantId: "t",
        name: "a",
        walletAddress: wallet,
        platformId: "a",
        createdAt: "2026-01-01T00:00:00Z",
        extra: true,
      },
    };
    await expect(steward.getWallet("agt_1")).resolves.toMatchObject({
      walletId: "agt_1",
      agentId: "a",
      address: wallet,
    });
  });
});

// Retry-After as RFC 9110 writes it: delta-seconds (Steward's) or an HTTP date.
describe("retryAfter", () => {
  it("reads seconds, a date, and nothing from an absent or unreadable header", () => {
    const now = Date.parse("2026-12-06T09:00:00Z");
    expect(retryAfter("3", now)).toBe(3_000);
    expect(retryAfter("Sun, 06 Dec 2026 09:00:30 GMT", now)).toBe(30_000);
    expect(retryAfter("Sun, 06 Dec 2026 08:59:00 GMT", now)).toBe(0);
    expect(retryAfter(null, now)).toBe(0);
    expect(retryAfter("soon", now)).toBe(0);
  });
});
