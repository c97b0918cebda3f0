import { ExchangeClient, HttpTransport, InfoClient } from "@nktkas/hyperliquid";
import { pino } from "pino";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHyperliquidStandIn } from "../../../devnet/stand-ins/hyperliquid/start.ts";
import { createHyperliquidClient } from "../../../services/hyperliquid/client.ts";
import { Fill, signL1Action } from "../../../services/hyperliquid/protocol.ts";
import { type ReplayServer, replayServer } from "../replay.ts";
import { type Recorded, recorded, shapeDiff } from "../shape.ts";

// Answers recorded out of Hyperliquid's API docs, the Python SDK's recordings of the live
// venue and @nktkas/hyperliquid's response types (each fixture says which): our client must
// read them and store what they say, and the stand-in must answer in the same shapes.

const fx = <B = unknown>(name: string) => recorded<B>(new URL(".", import.meta.url), name);
const U = "0x5e9ee1089755c3435139848e47e6635505d5a13a";

let server: ReplayServer;
let url = "";
/** `info:<type>` or `exchange` → the fixture to answer with. */
let routes: Record<string, Recorded> = {};
beforeAll(async () => {
  server = await replayServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = JSON.parse(raw || "{}") as { type?: string };
      const f = routes[req.url === "/exchange" ? "exchange" : `info:${body.type}`];
      const answer = f?.response.body;
      const text = typeof answer === "string" ? answer : JSON.stringify(answer ?? null);
      res.writeHead(f?.response.status ?? 599, {
        "content-type": typeof answer === "string" ? "text/plain" : "application/json",
      });
      res.end(text);
    });
  });
  url = server.url;
});
afterAll(() => server.close());

const replay = (r: Record<string, string>) => {
  routes = Object.fromEntries(Object.entries(r).map(([k, name]) => [k, fx(name)]));
};
const client = () => createHyperliquidClient({ apiUrl: url, retries: 0 });
const body = (name: string) => fx(name).response.body;

describe("our client reads the venue's recorded answers", () => {
  it("stores the account, fills, ledger, open orders, mids and meta as the venue wrote them", async () => {
    replay({
      "info:clearinghouseState": "clearinghouse-state",
      "info:userFillsByTime": "user-fills-by-time",
      "info:userNonFundingLedgerUpdates": "ledger-updates",
      "info:openOrders": "open-orders",
      "info:allMids": "all-mids",
      "info:meta": "meta",
    });
    const hl = client();
    expect(await hl.clearinghouseState(U)).toEqual(body("clearinghouse-state"));
    const fills = await hl.userFillsByTime(U, 0);
    expect(fills).toEqual(body("user-fills-by-time"));
    expect(fills[0]).toMatchObject({ tid: 118906512037719, twapId: null, feeToken: "USDC" });
    const ledger = await hl.userNonFundingLedgerUpdates(U, 0);
    expect(ledger.map((l) => l.delta)).toEqual([
      { type: "deposit", usdc: "2703997.4500000002" },
      { type: "accountClassTransfer", usdc: "12.0", toPerp: false },
    ]);
    expect(await hl.openOrders(U)).toEqual(body("open-orders"));
    expect((await hl.allMids()).BTC).toBe("30135.0");
    const meta = await hl.meta();
    expect(meta).toEqual(body("meta"));
    expect(meta.collateralToken).toBe(0);
  });

  it("the SDK's userFills reads the documented fills, and they pass our Fill check", async () => {
    replay({ "info:userFills": "user-fills" });
    const info = new InfoClient({ transport: new HttpTransport({ apiUrl: url }) });
    const fills = await info.userFills({ user: U });
    expect(() => Fill.array().parse(fills)).not.toThrow();
  });

  it("reads the order, cancel and refusal answers of /exchange", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const signed = await signL1Action({
      account,
      action: { type: "cancel", cancels: [{ a: 0, o: 1 }] },
      nonce: 1,
      isMainnet: false,
    });
    for (const name of ["exchange-order", "exchange-cancel", "exchange-refused"]) {
      replay({ exchange: name });
      expect(await client().exchange(signed), name).toEqual(body(name));
    }
  });

  it("a 422 is a rejection and a 429 a retryable unavailability carrying the status", async () => {
    replay({ "info:openOrders": "bad-request", "info:meta": "rate-limited" });
    await expect(client().openOrders(U)).rejects.toMatchObject({
      kind: "rejected",
      status: 422,
    });
    await expect(client().meta()).rejects.toMatchObject({ kind: "unavailable", status: 429 });
  });
});

describe("the stand-in answers in the recorded shapes", () => {
  let hl: Awaited<ReturnType<typeof startHyperliquidStandIn>>;
  let info: InfoClient;
  let exchange: ExchangeClient;
  const wallet = privateKeyToAccount(generatePrivateKey());
  const user = wallet.address.toLowerCase() as `0x${string}`;
  beforeAll(async () => {
    hl = await startHyperliquidStandIn({ log: pino({ level: "silent" }), walkEveryMs: 0 });
    const transport = new HttpTransport({ apiUrl: hl.url, timeout: 5_000 });
    info = new InfoClient({ transport });
    exchange = new ExchangeClient({ transport, wallet });
    await fetch(`${hl.url}/_control/deposit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user, usdc: "10000" }),
    });
  });
  afterAll(() => hl?.stop());
  const same = (name: string, answer: unknown) => {
    const f = fx(name);
    expect(shapeDiff(answer, f.response.body, f.optional), name).toEqual([]);
  };
  const post = async (b: unknown) => {
    const r = await fetch(`${hl.url}/info`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(b),
    });
    return { status: r.status, text: await r.text() };
  };

  it("info answers after a fill and a resting order, /exchange answers, and a 422", async () => {
    const order = (await exchange.order({
      orders: [
        { a: 1, b: true, p: "3000", s: "0.5", r: false, t: { limit: { tif: "Gtc" } } },
        { a: 0, b: true, p: "66000", s: "0.1", r: false, t: { limit: { tif: "Ioc" } } },
      ],
      grouping: "na",
    })) as unknown as { response: { data: { statuses: object[] } } };
    const recordedStatuses = (
      body("exchange-order") as { response: { data: { statuses: object[] } } }
    ).response.data.statuses;
    const [resting, filled] = order.response.data.statuses;
    expect(shapeDiff(resting, recordedStatuses[0])).toEqual([]);
    expect(shapeDiff(filled, recordedStatuses[1])).toEqual([]);
    same("clearinghouse-state", await info.clearinghouseState({ user }));
    same("user-fills", await info.userFills({ user }));
    same("user-fills-by-time", await info.userFillsByTime({ user, startTime: 0 }));
    same("ledger-updates", await info.userNonFundingLedgerUpdates({ user, startTime: 0 }));
    const open = await info.openOrders({ user });
    same("open-orders", open);
    // allMids is a record keyed by coin: its keys are data (the venue's coins), not shape.
    const mids = await info.allMids();
    const meta = await info.meta();
    same("meta", meta);
    for (const u of meta.universe) expect(mids[u.name], u.name).toMatch(/^\d+(\.\d+)?$/);
    for (const v of Object.values(body("all-mids") as object)) expect(v).toMatch(/^\d+(\.\d+)?$/);
    const oid = (open[0] as { oid: number }).oid;
    same("exchange-cancel", await exchange.cancel({ cancels: [{ a: 1, o: oid }] }));
    const bad = await post({ type: "openOrders" });
    expect(bad).toEqual({ status: 422, text: body("bad-request") });
  });
});
