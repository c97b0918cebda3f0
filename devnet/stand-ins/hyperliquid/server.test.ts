import { pino } from "pino";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpstreamError } from "../../../services/http.ts";
import {
  createHyperliquidClient,
  type HyperliquidClient,
} from "../../../services/hyperliquid/client.ts";
import { type L1Action, signL1Action } from "../../../services/hyperliquid/protocol.ts";
import { startHyperliquidStandIn } from "./start.ts";

// The stand-in over real HTTP, read through the production client: what the pollers and the
// trading-policies signer see.

let hl: Awaited<ReturnType<typeof startHyperliquidStandIn>>;
let client: HyperliquidClient;
const owner = privateKeyToAccount(generatePrivateKey());
const apiWallet = privateKeyToAccount(generatePrivateKey());
const user = owner.address.toLowerCase();

const control = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${hl.url}/_control${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};
let nonce = Date.now();
const exchange = async (action: L1Action, account = apiWallet, vaultAddress?: `0x${string}`) =>
  client.exchange(
    await signL1Action({ account, action, nonce: ++nonce, isMainnet: true, vaultAddress }),
  );

beforeAll(async () => {
  hl = await startHyperliquidStandIn({
    log: pino({ level: "silent" }),
    walkEveryMs: 0,
    hangMs: 3_000,
  });
  client = createHyperliquidClient({ apiUrl: hl.url, timeoutMs: 1_000, retries: 0 });
});
afterAll(async () => hl?.stop());

describe("perps venue stand-in", () => {
  it("serves marks, meta and an empty account for an unknown user", async () => {
    const mids = await client.allMids();
    expect(mids.BTC).toBe("65000");
    const meta = await client.meta();
    expect(meta.universe.map((u) => u.name)).toEqual(["BTC", "ETH", "SOL", "BNB"]);
    const [, ctxs] = await client.metaAndAssetCtxs();
    expect(ctxs[1]?.markPx).toBe("3200");
    const s = await client.clearinghouseState(user);
    expect(s.marginSummary.accountValue).toBe("0.000000");
    expect(s.assetPositions).toEqual([]);
  });

  it("refuses an order from an account or agent it does not know", async () => {
    const r = await exchange({
      type: "order",
      orders: [{ a: 0, b: true, p: "70000", s: "0.01", r: false, t: { limit: { tif: "Ioc" } } }],
      grouping: "na",
    });
    expect(r).toMatchObject({ status: "err" });
  });

  it("trades signed orders of an approved API wallet: open, mark move, close with PnL", async () => {
    expect((await control("POST", "/deposit", { user, usdc: "1000" })).status).toBe(200);
    await control("POST", "/approve-agent", { user, agent: apiWallet.address });
    const lev = await exchange({ type: "updateLeverage", asset: 0, isCross: true, leverage: 10 });
    expect(lev).toEqual({ status: "ok", response: { type: "default" } });
    const open = await exchange({
      type: "order",
      orders: [{ a: 0, b: true, p: "66000", s: "0.1", r: false, t: { limit: { tif: "Ioc" } } }],
      grouping: "na",
    });
    expect(open).toMatchObject({
      status: "ok",
      response: { data: { statuses: [{ filled: { totalSz: "0.1", avgPx: "65000" } }] } },
    });
    const s1 = await client.clearinghouseState(user);
    expect(s1.assetPositions[0]?.position).toMatchObject({
      coin: "BTC",
      szi: "0.1",
      entryPx: "65000",
      leverage: { type: "cross", value: 10 },
    });
    await control("PUT", "/marks", { BTC: 66000 });
    const s2 = await client.clearinghouseState(user);
    expect(s2.assetPositions[0]?.position.unrealizedPnl).toBe("100.000000");
    const close = await exchange({
      type: "order",
      orders: [{ a: 0, b: false, p: "60000", s: "0.1", r: true, t: { limit: { tif: "Ioc" } } }],
      grouping: "na",
    });
    expect(close).toMatchObject({ status: "ok" });
    const fills = await client.userFillsByTime(user, 0);
    expect(fills.map((f) => [f.dir, f.closedPnl])).toEqual([
      ["Open Long", "0.000000"],
      ["Close Long", "100.000000"],
    ]);
    expect(new Set(fills.map((f) => f.tid)).size).toBe(2);
    // 1000 + 100 PnL - taker fees on 6500 and 6600 notional.
    const s3 = await client.clearinghouseState(user);
    expect(Number(s3.marginSummary.accountValue)).toBeCloseTo(1100 - 0.00045 * 13100, 6);
    expect(s3.assetPositions).toEqual([]);
  });

  it("refuses a replayed nonce, an order beyond margin and a bad size", async () => {
    const action: L1Action = {
      type: "order",
      orders: [{ a: 1, b: true, p: "4000", s: "0.01", r: false, t: { limit: { tif: "Ioc" } } }],
      grouping: "na",
    };
    const body = await signL1Action({
      account: apiWallet,
      action,
      nonce: ++nonce,
      isMainnet: true,
    });
    expect(await client.exchange(body)).toMatchObject({ status: "ok" });
    expect(await client.exchange(body)).toEqual({
      status: "err",
      response: "Invalid nonce: duplicate nonce",
    });
    const big = await exchange({
      type: "order",
      orders: [{ a: 1, b: true, p: "4000", s: "100", r: false, t: { limit: { tif: "Ioc" } } }],
      grouping: "na",
    });
    expect(big).toMatchObject({
      response: { data: { statuses: [{ error: expect.stringMatching(/Insufficient margin/) }] } },
    });
    const odd = await exchange({
      type: "order",
      orders: [{ a: 1, b: true, p: "4000", s: "0.000001", r: false, t: { limit: { tif: "Ioc" } } }],
      grouping: "na",
    });
    expect(odd).toMatchObject({
      response: { data: { statuses: [{ error: "Order has invalid size." }] } },
    });
  });

  it("rests a Gtc order below the mark and fills it when the mark comes down", async () => {
    const r = await exchange({
      type: "order",
      orders: [{ a: 1, b: true, p: "3100", s: "0.01", r: false, t: { limit: { tif: "Gtc" } } }],
      grouping: "na",
    });
    expect(r).toMatchObject({
      response: { data: { statuses: [{ resting: { oid: expect.any(Number) } }] } },
    });
    await control("PUT", "/marks", { ETH: 3050 });
    const fills = await client.userFillsByTime(user, 0);
    expect(fills.at(-1)).toMatchObject({
      coin: "ETH",
      px: "3100",
      crossed: false,
      dir: "Open Long",
    });
  });

  it("liquidates when the mark takes the account under maintenance margin", async () => {
    const victim = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
    await control("POST", "/deposit", { user: victim, usdc: "100" });
    await control("POST", "/fill", { user: victim, coin: "SOL", side: "B", sz: "10" });
    const before = await client.clearinghouseState(victim);
    const liqPx = Number(before.assetPositions[0]?.position.liquidationPx);
    expect(liqPx).toBeGreaterThan(130);
    expect(liqPx).toBeLessThan(150);
    await control("PUT", "/marks", { SOL: Math.floor(liqPx) - 1 });
    const ledger = await client.userNonFundingLedgerUpdates(victim, 0);
    expect(ledger.map((l) => l.delta.type)).toEqual(["deposit", "liquidation"]);
    const fills = await client.userFillsByTime(victim, 0);
    expect(fills.at(-1)).toMatchObject({ dir: "Close Long", liquidation: { method: "market" } });
    expect((await client.clearinghouseState(victim)).assetPositions).toEqual([]);
  });

  it("answers time ranges inclusively, oldest first, and fails or hangs when told", async () => {
    const t = Date.now() - 60_000;
    const u = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
    for (let i = 0; i < 3; i++)
      await control("POST", "/fill", {
        user: u,
        coin: "BNB",
        side: "B",
        sz: "0.1",
        time: t + i * 1000,
      });
    expect((await client.userFillsByTime(u, t + 1000)).map((f) => f.time)).toEqual([
      t + 1000,
      t + 2000,
    ]);
    expect((await client.userFillsByTime(u, t, t + 1000)).length).toBe(2);
    await control("PUT", "/fail", { mode: "error", count: 1, types: ["userFillsByTime"] });
    await expect(client.userFillsByTime(u, t)).rejects.toMatchObject({
      kind: "unavailable",
      status: 500,
    });
    expect((await client.userFillsByTime(u, t)).length).toBe(3);
    await control("PUT", "/fail", { mode: "hang", count: 1 });
    const err = await client.clearinghouseState(u).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).kind).toBe("unavailable");
    const bad = await fetch(`${hl.url}/info`, {
      method: "POST",
      body: JSON.stringify({ type: "nope" }),
    });
    expect(bad.status).toBe(422);
  });
});
