import { ExchangeClient, HttpRequestError, HttpTransport, InfoClient } from "@nktkas/hyperliquid";
import { pino } from "pino";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Fill, Meta, OpenOrder } from "../../../services/hyperliquid/protocol.ts";
import { startHyperliquidStandIn } from "./start.ts";

// The stand-in judged by the real SDK, @nktkas/hyperliquid: its InfoClient reads and its
// ExchangeClient signs and sends orders and cancels through an HttpTransport pointed at the
// stand-in, exactly as a trader's code pointed at api.hyperliquid.xyz would.

let hl: Awaited<ReturnType<typeof startHyperliquidStandIn>>;
let info: InfoClient;
let exchange: ExchangeClient;
const wallet = privateKeyToAccount(generatePrivateKey());
const user = wallet.address.toLowerCase() as `0x${string}`;

const control = (method: string, path: string, body?: unknown) =>
  fetch(`${hl.url}/_control${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((r) => r.json() as Promise<Record<string, unknown>>);
/** Weight the stand-in booked since `since` (ms), by request type. */
const weights = async (since: number) => {
  const w = (await control("GET", `/weight?since=${since}`)) as {
    log: { type: string; weight: number }[];
  };
  return w.log.map((m) => [m.type, m.weight]);
};

beforeAll(async () => {
  hl = await startHyperliquidStandIn({ log: pino({ level: "silent" }), walkEveryMs: 0 });
  const transport = new HttpTransport({ apiUrl: hl.url, timeout: 5_000 });
  info = new InfoClient({ transport });
  exchange = new ExchangeClient({ transport, wallet });
  await control("POST", "/deposit", { user, usdc: "10000" });
});
afterAll(async () => hl?.stop());

describe("Hyperliquid stand-in, driven by @nktkas/hyperliquid", () => {
  it("answers meta with its collateral token and every margin table it refers to", async () => {
    const meta = await info.meta();
    expect(meta.collateralToken).toBe(0);
    const tables = new Set(meta.marginTables.map(([id]) => id));
    for (const u of meta.universe) expect(tables.has(u.marginTableId), u.name).toBe(true);
    expect(() => Meta.parse(meta)).not.toThrow();
    const mids = await info.allMids();
    expect(mids.BTC).toBe("65000");
  });

  it("fills an order the SDK signs, then lists it in the account, fills and ledger", async () => {
    const since = Date.now();
    const r = await exchange.order({
      orders: [{ a: 0, b: true, p: "66000", s: "0.1", r: false, t: { limit: { tif: "Ioc" } } }],
      grouping: "na",
    });
    expect(r.response.data.statuses[0]).toMatchObject({
      filled: { totalSz: "0.1", avgPx: "65000" },
    });
    const state = await info.clearinghouseState({ user });
    expect(state.assetPositions[0]?.position).toMatchObject({ coin: "BTC", szi: "0.1" });
    const fills = await info.userFills({ user });
    const byTime = await info.userFillsByTime({ user, startTime: since });
    expect(fills.map((f) => [f.coin, f.sz, f.twapId])).toEqual([["BTC", "0.1", null]]);
    expect(byTime).toEqual(fills);
    expect(() => Fill.array().parse(byTime)).not.toThrow();
    const ledger = await info.userNonFundingLedgerUpdates({ user, startTime: 0 });
    expect(ledger.map((l) => [l.delta.type, (l.delta as { usdc?: string }).usdc])).toEqual([
      ["deposit", "10000"],
    ]);
  });

  it("rests an order, lists it in openOrders, cancels it through the SDK", async () => {
    const r = await exchange.order({
      orders: [{ a: 1, b: true, p: "3000", s: "0.5", r: false, t: { limit: { tif: "Gtc" } } }],
      grouping: "na",
    });
    const status = r.response.data.statuses[0] as { resting: { oid: number } };
    const open = await info.openOrders({ user });
    expect(open).toMatchObject([
      {
        coin: "ETH",
        side: "B",
        limitPx: "3000",
        sz: "0.5",
        origSz: "0.5",
        oid: status.resting.oid,
      },
    ]);
    expect(() => OpenOrder.array().parse(open)).not.toThrow();
    const c = await exchange.cancel({ cancels: [{ a: 1, o: status.resting.oid }] });
    expect(c.response.data.statuses).toEqual(["success"]);
    expect(await info.openOrders({ user })).toEqual([]);
  });

  it("books the documented weights: 2, 20, 20 + 1 per 20 fills, 1 per action", async () => {
    // Counted by position, not by time: the previous test's last request can share the
    // millisecond this one starts in.
    const before = (await weights(0)).length;
    await info.allMids();
    await info.clearinghouseState({ user });
    await info.meta();
    await info.openOrders({ user });
    await info.userNonFundingLedgerUpdates({ user, startTime: 0 });
    await info.userFillsByTime({ user, startTime: 0 });
    await exchange.cancel({ cancels: [{ a: 1, o: 1 }] }).catch(() => undefined);
    expect((await weights(0)).slice(before)).toEqual([
      ["allMids", 2],
      ["clearinghouseState", 2],
      ["meta", 20],
      ["openOrders", 20],
      ["userNonFundingLedgerUpdates", 20],
      ["userFillsByTime", 20],
      ["exchange", 1],
    ]);
  });

  it("answers 429 past the weight budget, which the SDK reports with its status", async () => {
    await control("PUT", "/fail", { mode: "rate-limit", count: 1 });
    const e = await info.meta().catch((error: unknown) => error);
    expect(e).toBeInstanceOf(HttpRequestError);
    expect((e as HttpRequestError).response?.status).toBe(429);
  });
});
