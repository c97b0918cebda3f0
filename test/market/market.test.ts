import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  formatUnits,
  getAbiItem,
  http,
  type PublicClient,
  parseEther,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bnbUsdFeedAbi } from "../../abis/BnbUsdFeed.ts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { uniswapV2PairAbi } from "../../abis/UniswapV2Pair.ts";
import { uniswapV2Router02Abi } from "../../abis/UniswapV2Router02.ts";
import { type App, createApp } from "../../api/app.ts";
import { defaultApiSettings } from "../../api/settings.ts";
import { requestAs } from "../../api/testing/client.ts";
import { responseChecker } from "../../api/testing/openapi.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { minedReceipt } from "../../devnet/mined-receipt.ts";
import { type DeploymentRecord, readDeploymentRecord } from "../../devnet/record.ts";
import { type SeedDevnetReturnType, seedDevnet } from "../../devnet/seed.ts";
import { createSql, type Sql } from "../../lib/db/client.ts";
import { isolatedEnv, type Stack, startStack } from "../helpers/cli.ts";
import { feedRates } from "../indexer/market-check.ts";
import {
  buckets,
  type ChainTrade,
  chainTrades,
  DAY,
  dayStats,
  marketCap,
  WAD,
} from "./recompute.ts";

// Market data through the real stack: `launchpad start` on an automine devnet (so the test owns
// the chain's clock), the devnet seed, then trades and BNB/USD answers placed on either side of
// the 24-hour boundary. Every figure the API gives is compared with a recomputation from logs.

let stack: Stack;
let sql: Sql;
let app: App;
let seed: SeedDevnetReturnType;
let record: DeploymentRecord;
let client: PublicClient;
let check: ReturnType<typeof responseChecker>;
/** The chain time the 24-hour window ends at: the newest block's. */
let now: bigint;
let trades: ChainTrade[];
let latestRate: bigint;
let tokenA: Address;
const pairs = new Map<Address, Address>();
const lc = (a: string) => a.toLowerCase() as Address;
const usd = (v: bigint) => formatUnits(v, 18);

async function get(path: string, template: string, init?: RequestInit) {
  const res = await requestAs(app, path, { init });
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the OpenAPI schema
  const body = res.status === 304 ? null : ((await res.json()) as any);
  if (body !== null) expect(check(template, "get", res.status, body)).toEqual([]);
  return { status: res.status, body, headers: res.headers };
}

beforeAll(async () => {
  const env = { ...(await isolatedEnv()), DEVNET_BLOCK_TIME: "0" };
  stack = await startStack(env);
  const rpcUrl = `http://127.0.0.1:${env.DEVNET_PORT}`;
  seed = await seedDevnet({ rpcUrl, dataDir: env.LAUNCHPAD_DATA_DIR, tokens: 3, trades: 20 });
  record = readDeploymentRecord(env.LAUNCHPAD_DATA_DIR) as DeploymentRecord;
  const chain = defineChain({
    id: record.chainId,
    name: "devnet",
    nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  client = createPublicClient({ chain, transport: http(rpcUrl) }) as PublicClient;
  const test = createTestClient({ chain, mode: "anvil", transport: http(rpcUrl) });
  const accounts = devnetAccounts();
  const ext = (i: number) => accounts.external[i] as (typeof accounts)["feedUpdater"];
  const wallet = (i: number) =>
    createWalletClient({ account: ext(i), chain, transport: http(rpcUrl) });
  const c = record.contracts;
  const at = async (t: bigint, send: () => Promise<`0x${string}`>) => {
    await test.setNextBlockTimestamp({ timestamp: t });
    const r = await minedReceipt({ client, test, hash: await send() });
    if (r.status !== "success") throw new Error(`tx ${r.transactionHash} reverted`);
  };
  const buy = (i: number, token: Address, bnb: string) => () =>
    wallet(i).writeContract({
      address: c.tokenManager2,
      abi: tokenManager2Abi,
      functionName: "buyTokenAMAP",
      args: [token, parseEther(bnb), 0n],
      value: parseEther(bnb),
      gas: 400_000n,
    });
  const answer = (usdPerBnb: bigint) => () =>
    createWalletClient({
      account: accounts.feedUpdater,
      chain,
      transport: http(rpcUrl),
    }).writeContract({
      address: c.bnbUsdFeed,
      abi: bnbUsdFeedAbi,
      functionName: "updateAnswer",
      args: [usdPerBnb * 10n ** 8n],
    });
  tokenA = lc(seed.tokens[1] as Address);
  const tokenB = lc(seed.tokens[2] as Address);
  const S = (await client.getBlock()).timestamp;
  const T0 = S + 20n;
  const H = T0 + DAY;
  await at(S + 10n, answer(650n));
  await at(S + 15n, () =>
    wallet(0).writeContract({
      address: tokenA,
      abi: erc20Abi,
      functionName: "approve",
      args: [c.tokenManager2, 2n ** 255n],
    }),
  );
  // Exactly at the window's start (excluded once the head is at H), then just inside it.
  await at(T0, buy(0, tokenA, "0.05"));
  await at(T0 + 1n, async () => {
    const held = await client.readContract({
      address: tokenA,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [ext(0).address],
    });
    const part = held / 3n;
    return wallet(0).writeContract({
      address: c.tokenManager2,
      abi: tokenManager2Abi,
      functionName: "sellToken",
      args: [tokenA, part - (part % 10n ** 9n)],
      gas: 400_000n,
    });
  });
  await at(T0 + 3n, buy(1, tokenB, "0.03"));
  await at(S + 30n, answer(700n));
  await at(H - 7200n, buy(1, tokenA, "0.02"));
  await at(H - 60n, () =>
    wallet(2).writeContract({
      address: c.uniswapV2Router,
      abi: uniswapV2Router02Abi,
      functionName: "swapExactETHForTokensSupportingFeeOnTransferTokens",
      args: [0n, [c.wbnb, seed.graduatedToken], ext(2).address, H + 600n],
      value: parseEther("0.1"),
      gas: 600_000n,
    }),
  );
  await at(H, buy(2, tokenA, "0.04"));
  const head = await client.getBlock();
  now = head.timestamp;
  const pg = JSON.parse(readFileSync(join(env.LAUNCHPAD_DATA_DIR, "postgres.json"), "utf8"));
  sql = createSql(`postgres://launchpad:${pg.password}@127.0.0.1:${pg.port}/launchpad`);
  for (let i = 0; ; i++) {
    const [row] = await sql`select substring(latest_checkpoint, 27, 16)::bigint as b
      from onchain._ponder_checkpoint where chain_id = 56`.catch(() => []);
    if (row && BigInt(row.b) >= head.number) break;
    if (i > 600) throw new Error(`the index did not reach block ${head.number}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  await sql`insert into app.agents (agent_id, name, ticker, description, image_url, status, token_address, launched_at)
    values ('mkt', 'Market', 'MKT', 'The agent of token A.', 'https://img.example/a.png', 'active', ${tokenA}, now())`;
  app = createApp({
    logger: pino({ level: "silent" }),
    env: "test",
    sql,
    settings: defaultApiSettings({ webUrl: "https://web.example" }),
  });
  check = responseChecker((await (await app.request("/openapi.json")).json()) as never);
  const all = (await get("/tokens?limit=100", "/tokens")).body.data.items as {
    address: Address;
    pair: Address;
  }[];
  for (const t of all) pairs.set(t.address, t.pair);
  const rates = await feedRates(client, record);
  latestRate = rates.at(-1)?.rate as bigint;
  trades = await chainTrades(client, record, pairs, rates);
}, 600_000);

afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await stack?.cleanup();
});

const of = (token: Address) => trades.filter((t) => t.token === token);

/**
 * The spot price at creation: the curve's (read at the TokenCreate block) or, for a deposit
 * launch, the pair's first reserves; 0 for a token never created.
 */
async function initialSpot(token: Address): Promise<bigint> {
  const fromBlock = BigInt(record.deployedAtBlock);
  const created = (
    await client.getLogs({
      address: record.contracts.tokenManager2,
      event: getAbiItem({ abi: tokenManager2Abi, name: "TokenCreate" }),
      fromBlock,
      toBlock: "latest",
    })
  ).find((l) => lc((l.args as { token: Address }).token) === token);
  if (created) {
    const info = await client.readContract({
      address: record.contracts.tokenManager2,
      abi: tokenManager2Abi,
      functionName: "_tokenInfos",
      args: [token],
      blockNumber: created.blockNumber,
    });
    return info[9];
  }
  const [sync] = await client.getLogs({
    address: pairs.get(token) as Address,
    event: getAbiItem({ abi: uniswapV2PairAbi, name: "Sync" }),
    fromBlock,
    toBlock: "latest",
  });
  if (!sync) return 0n;
  const a = sync.args as { reserve0: bigint; reserve1: bigint };
  return token < lc(record.contracts.wbnb)
    ? (a.reserve1 * WAD) / a.reserve0
    : (a.reserve0 * WAD) / a.reserve1;
}

describe("token records", () => {
  it("the window edges: a trade exactly 24 h before the head is out, one a second later in", () => {
    const a = of(tokenA);
    expect(a.some((t) => t.time === now - DAY)).toBe(true);
    expect(a.some((t) => t.time === now - DAY + 1n)).toBe(true);
    expect(a.some((t) => t.time === now)).toBe(true);
    expect(new Set(trades.map((t) => t.rate)).size).toBeGreaterThanOrEqual(3);
  });

  it("every token's USD and 24-hour figures equal a recomputation from logs and reads", async () => {
    const { body } = await get("/tokens?limit=100", "/tokens");
    expect(body.data.items.length).toBe(pairs.size);
    for (const t of body.data.items) {
      const mine = of(t.address);
      const s = dayStats(mine, now);
      const last = mine.at(-1);
      const spot = last?.spot ?? (await initialSpot(t.address));
      expect(t.price).toBe(String(spot));
      const cap = await marketCap(client, t.address, spot);
      // Every token here is older than 24 h: the reference is the last spot before the window,
      // else the creation price; a token never created has none.
      const ref = s.refSpot ?? (t.createdAt === null ? null : await initialSpot(t.address));
      expect(t, t.address).toMatchObject({
        priceUsd: usd((spot * latestRate) / WAD),
        marketCap: String(cap),
        marketCapUsd: usd((cap * latestRate) / WAD),
        volume24hBnb: String(s.volume24hBnb),
        volume24hUsd: usd(s.volume24hUsd),
        trades24h: s.trades24h,
        buys24h: s.buys24h,
        sells24h: s.sells24h,
        uniqueTraders24h: s.uniqueTraders24h,
        high24h: s.high24h === null ? null : String(s.high24h),
        low24h: s.low24h === null ? null : String(s.low24h),
        lastTradeAt: last ? new Date(Number(last.time) * 1000).toISOString() : null,
        priceChange24h: ref ? Number(((spot - ref) * 10_000n) / ref) / 100 : null,
      });
      const code = await client.getCode({ address: t.pair });
      if (code && code !== "0x") {
        const [r0, r1] = await client.readContract({
          address: t.pair,
          abi: uniswapV2PairAbi,
          functionName: "getReserves",
        });
        const bnb = t.address < lc(record.contracts.wbnb) ? r1 : r0;
        expect(t.liquidityBnb).toBe(String(bnb));
        expect(t.liquidityUsd).toBe(usd((bnb * latestRate) / WAD));
      } else expect(t.liquidityBnb).toBeNull();
    }
    const a = body.data.items.find((t: { address: string }) => t.address === tokenA);
    expect(a.trades24h).toBe(of(tokenA).filter((t) => t.time > now - DAY).length);
    expect(a.trades24h).toBeLessThan(of(tokenA).length);
  });

  it("the agent's fields, image and description come with its token", async () => {
    const { body } = await get(`/tokens/${tokenA}`, "/tokens/{address}");
    expect(body.data).toMatchObject({
      agentId: "mkt",
      agentPageUrl: `https://web.example/agent/${tokenA}`,
      image: "https://img.example/a.png",
      description: "The agent of token A.",
    });
    const other = (await get(`/tokens/${seed.tokens[2]}`, "/tokens/{address}")).body.data;
    expect(other).toMatchObject({ agentId: null, agentPageUrl: null });
  });
});

describe("GET /tokens: sorts, search, filters, cursors", () => {
  /** Every token in the order of `query`, walked with cursors two at a time. */
  async function walk(query: string) {
    const seen: { address: Address }[] = [];
    let cursor: string | null = null;
    do {
      const c: string = cursor ? `&cursor=${cursor}` : "";
      const { status, body } = await get(`/tokens?limit=2&${query}${c}`, "/tokens");
      expect(status).toBe(200);
      seen.push(...body.data.items);
      cursor = body.data.nextCursor;
    } while (cursor);
    return seen.map((t) => t.address);
  }
  const byKey = (key: (a: Address) => bigint, desc = true) =>
    [...pairs.keys()].sort((x, y) => {
      const d = key(x) - key(y);
      const c = d === 0n ? (x < y ? -1 : 1) : d < 0n ? -1 : 1;
      return desc ? -c : c;
    });

  it("volume24h and trending orders equal the recomputed keys", async () => {
    const vol = (a: Address) => dayStats(of(a), now).volume24hBnb;
    const trend = (a: Address) => dayStats(of(a), now).trending;
    expect(await walk("sort=volume24h")).toEqual(byKey(vol));
    expect(await walk("sort=volume24h&order=asc")).toEqual(byKey(vol, false));
    expect(await walk("sort=trending")).toEqual(byKey(trend));
    expect(trend(tokenA)).toBeGreaterThan(0n);
  });

  it("marketCap and new orders follow the chain", async () => {
    const caps = new Map<Address, bigint>();
    for (const a of pairs.keys()) {
      caps.set(a, await marketCap(client, a, of(a).at(-1)?.spot ?? (await initialSpot(a))));
    }
    expect(await walk("sort=marketCap")).toEqual(byKey((a) => caps.get(a) as bigint));
    const registered = new Map<Address, bigint>();
    const rows = await sql`select address, registered_block from onchain.token`;
    for (const r of rows) registered.set(r.address, BigInt(r.registered_block));
    const newest = await walk("sort=new");
    expect(newest).toEqual(byKey((a) => registered.get(a) as bigint));
  });

  it("q matches a name or symbol prefix case-insensitively, or an exact address", async () => {
    const { body } = await get("/tokens?limit=100", "/tokens");
    const items = body.data.items as { address: Address; name: string; symbol: string }[];
    const a = items.find((t) => t.address === tokenA) as (typeof items)[number];
    const prefix = a.symbol.slice(0, 2).toLowerCase();
    const want = items
      .filter(
        (t) =>
          t.name?.toLowerCase().startsWith(prefix) || t.symbol?.toLowerCase().startsWith(prefix),
      )
      .map((t) => t.address)
      .sort();
    const got = (await get(`/tokens?limit=100&q=${prefix}`, "/tokens")).body.data;
    expect(got.items.map((t: { address: string }) => t.address).sort()).toEqual(want);
    expect(got.total).toBe(want.length);
    const exact = (await get(`/tokens?q=${tokenA.toUpperCase().replace("0X", "0x")}`, "/tokens"))
      .body.data.items;
    expect(exact.map((t: { address: string }) => t.address)).toEqual([tokenA]);
    expect((await get("/tokens?q=%25", "/tokens")).body.data.items).toEqual([]);
  });

  it("status and creator filter", async () => {
    const grad = (await get("/tokens?status=graduated&limit=100", "/tokens")).body.data.items;
    expect(grad.map((t: { address: string }) => t.address)).toContain(lc(seed.graduatedToken));
    for (const t of grad) expect(t.status).toBe("graduated");
    const a = (await get(`/tokens/${tokenA}`, "/tokens/{address}")).body.data;
    const mine = (await get(`/tokens?creator=${a.creator}&limit=100`, "/tokens")).body.data.items;
    expect(mine.map((t: { address: string }) => t.address)).toContain(tokenA);
    for (const t of mine) expect(t.creator).toBe(a.creator);
  });

  it.each([
    "sort=hot",
    "order=up",
    "status=dead",
    "creator=0x12",
    `q=${"x".repeat(65)}`,
    "cursor=abc!",
    "cursor=eyJrIjoiMSJ9",
    "limit=0",
  ])("?%s is 400", async (q) => {
    const { status, body } = await get(`/tokens?${q}`, "/tokens");
    expect(status).toBe(400);
    expect(body.error).toBe("validation_failed");
  });

  it("a cursor of another sort, or with an offset, is 400", async () => {
    const c = (await get("/tokens?limit=1&sort=marketCap", "/tokens")).body.data.nextCursor;
    expect((await get(`/tokens?sort=new&cursor=${c}`, "/tokens")).status).toBe(400);
    expect((await get(`/tokens?sort=marketCap&cursor=${c}&offset=1`, "/tokens")).status).toBe(400);
  });
});

describe("GET /tokens/{address}/holders", () => {
  const P = "/tokens/{address}/holders";
  it("pages every non-zero balance, largest first, equal to balanceOf, market accounts labelled", async () => {
    const token = lc(seed.graduatedToken);
    const seen: { account: Address; balance: string; shareBps: number; role: string | null }[] = [];
    let cursor: string | null = null;
    do {
      const c: string = cursor ? `&cursor=${cursor}` : "";
      const { status, body } = await get(`/tokens/${token}/holders?limit=3${c}`, P);
      expect(status).toBe(200);
      seen.push(...body.data.items);
      cursor = body.data.nextCursor;
    } while (cursor);
    const transfers = await client.getLogs({
      address: token,
      event: getAbiItem({ abi: erc20Abi, name: "Transfer" }),
      fromBlock: BigInt(record.deployedAtBlock),
      toBlock: "latest",
    });
    const accounts = new Set(
      transfers.flatMap((l) => [lc(l.args.from ?? ""), lc(l.args.to ?? "")]),
    );
    const supply = await client.readContract({
      address: token,
      abi: erc20Abi,
      functionName: "totalSupply",
    });
    const want: { account: Address; balance: bigint }[] = [];
    for (const account of accounts) {
      if (account === lc("0x0000000000000000000000000000000000000000")) continue;
      const balance = await client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [account],
      });
      if (balance > 0n) want.push({ account, balance });
    }
    want.sort((x, y) =>
      x.balance === y.balance ? (x.account < y.account ? 1 : -1) : x.balance < y.balance ? 1 : -1,
    );
    expect(seen.map((h) => [h.account, h.balance])).toEqual(
      want.map((h) => [h.account, String(h.balance)]),
    );
    for (const h of seen) expect(h.shareBps).toBe(Number((BigInt(h.balance) * 10_000n) / supply));
    expect(seen.find((h) => h.account === pairs.get(token))?.role).toBe("pair");
    const curve = lc(record.contracts.tokenManager2);
    const own = (await get(`/tokens/${token}/holders?limit=100&market=false`, P)).body.data.items;
    expect(own.map((h: { account: string }) => h.account)).toEqual(
      seen.filter((h) => h.role === null).map((h) => h.account),
    );
    expect(own.map((h: { account: string }) => h.account)).not.toContain(pairs.get(token));
    const live = (await get(`/tokens/${tokenA}/holders?limit=1`, P)).body.data.items;
    expect(live[0]).toMatchObject({ account: curve, role: "curve" });
  });

  it.each(["limit=0", "cursor=abc!", "cursor=eyJiIjoxfQ", "market=yes"])(
    "?%s is 400",
    async (q) => {
      expect((await get(`/tokens/${tokenA}/holders?${q}`, P)).status).toBe(400);
    },
  );

  it("an unknown token is 404", async () => {
    expect((await get(`/tokens/0x${"1".repeat(40)}/holders`, P)).status).toBe(404);
  });
});

describe("candles", () => {
  const C = "/tokens/{address}/chart";
  const iso = (t: bigint) => new Date(Number(t) * 1000).toISOString();

  it.each([
    ["4h", 14_400n],
    ["1d", 86_400n],
    ["1h", 3_600n],
  ])("%s candles in BNB and USD equal the trades", async (interval, seconds) => {
    for (const token of [tokenA, lc(seed.graduatedToken)]) {
      for (const currency of ["bnb", "usd"] as const) {
        const { body } = await get(
          `/tokens/${token}/chart?interval=${interval}&currency=${currency}&limit=1000`,
          C,
        );
        const fmt = (v: bigint) => (currency === "usd" ? usd(v) : String(v));
        const want = buckets(of(token), seconds, currency === "usd").map(([t, b]) => ({
          time: iso(t),
          open: fmt(b.o),
          high: fmt(b.h),
          low: fmt(b.l),
          close: fmt(b.c),
          volumeBnb: String(b.v),
          tradeCount: b.n,
        }));
        const items = body.data.items as Record<string, unknown>[];
        expect(items.map(({ volumeToken: _, volumeUsd: __, ...rest }) => rest)).toEqual(want);
      }
    }
  });

  it("fill=true fills every empty 4h bucket with the previous close and zero volume", async () => {
    const sec = 14_400n;
    const bars = buckets(of(tokenA), sec, false);
    const first = bars[0]?.[0] as bigint;
    const { body } = await get(`/tokens/${tokenA}/chart?interval=4h&fill=true&limit=1000`, C);
    const items = body.data.items as { time: string; close: string; tradeCount: number }[];
    const open = now - (now % sec);
    expect(items[0]?.time).toBe(iso(first));
    expect(items.at(-1)?.time).toBe(iso(open));
    expect(items).toHaveLength(Number((open - first) / sec) + 1);
    const real = new Map(bars);
    let prev = "";
    for (const c of items) {
      const b = real.get(BigInt(Date.parse(c.time) / 1000));
      if (b) expect(c).toMatchObject({ close: String(b.c), tradeCount: b.n });
      else {
        expect(c).toMatchObject({ open: prev, high: prev, low: prev, close: prev, tradeCount: 0 });
        expect(c).toMatchObject({ volumeBnb: "0", volumeToken: "0", volumeUsd: "0" });
      }
      prev = c.close;
    }
    expect(items.some((c) => c.tradeCount === 0)).toBe(true);
  });

  it("closed ranges carry a strong ETag and a long Cache-Control; the open bucket a short one", async () => {
    const to = Number(now - DAY);
    const closed = await get(`/tokens/${tokenA}/chart?interval=1h&to=${to}`, C);
    expect(closed.headers.get("cache-control")).toBe("public, max-age=86400");
    const etag = closed.headers.get("etag") as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await get(`/tokens/${tokenA}/chart?interval=1h&to=${to}`, C, {
      headers: { "If-None-Match": etag },
    });
    expect(again.status).toBe(304);
    const live = await get(`/tokens/${tokenA}/chart?interval=1h`, C);
    expect(live.headers.get("cache-control")).toBe("public, max-age=5");
    expect(live.headers.get("etag")).not.toBe(etag);
  });

  it.each(["interval=2h", "interval=4h&currency=eur", "interval=4h&fill=maybe"])(
    "?%s is 400",
    async (q) => {
      expect((await get(`/tokens/${tokenA}/chart?${q}`, C)).status).toBe(400);
    },
  );
});

describe("TradingView UDF", () => {
  it("/udf/history equals /tokens/:a/chart for the same range, in BNB and USD", async () => {
    const from = Number(now - DAY - 3600n);
    const hour = 3600;
    const to = Number(now + 1n);
    for (const [suffix, currency] of [
      ["", "bnb"],
      ["/USD", "usd"],
    ] as const) {
      const h = (
        await get(
          `/udf/history?symbol=${tokenA}${suffix}&resolution=60&from=${from}&to=${to}`,
          "/udf/history",
        )
      ).body;
      const chart = (
        await get(
          `/tokens/${tokenA}/chart?interval=1h&currency=${currency}&from=${Math.ceil(from / hour) * hour}&to=${to - 1}&limit=1000`,
          "/tokens/{address}/chart",
        )
      ).body.data.items as {
        time: string;
        open: string;
        high: string;
        low: string;
        close: string;
        volumeBnb: string;
      }[];
      const n = (v: string) =>
        currency === "usd" ? Number(v) : Number(formatUnits(BigInt(v), 18));
      expect(h.s).toBe("ok");
      expect(chart.length).toBeGreaterThanOrEqual(3);
      expect(h).toEqual({
        s: "ok",
        t: chart.map((c) => Date.parse(c.time) / 1000),
        o: chart.map((c) => n(c.open)),
        h: chart.map((c) => n(c.high)),
        l: chart.map((c) => n(c.low)),
        c: chart.map((c) => n(c.close)),
        v: chart.map((c) => Number(formatUnits(BigInt(c.volumeBnb), 18))),
      });
    }
  });

  it("no_data before the first bar; countback; nextTime points back", async () => {
    const firstTrade = of(tokenA)[0]?.time as bigint;
    const early = await get(
      `/udf/history?symbol=${tokenA}&resolution=1&from=100&to=${Number(firstTrade) - 120}`,
      "/udf/history",
    );
    expect(early.body).toEqual({ s: "no_data" });
    const gap = await get(
      `/udf/history?symbol=${tokenA}&resolution=1&from=${Number(now - 3000n)}&to=${Number(now - 1000n)}`,
      "/udf/history",
    );
    expect(gap.body.s).toBe("no_data");
    expect(gap.body.nextTime).toBe(
      Number(
        of(tokenA)
          .filter((t) => t.time < now - 3000n)
          .at(-1)?.time ?? 0n,
      ) -
        (Number(
          of(tokenA)
            .filter((t) => t.time < now - 3000n)
            .at(-1)?.time ?? 0n,
        ) %
          60),
    );
    const back = await get(
      `/udf/history?symbol=${tokenA}&resolution=1&from=0&to=${Number(now) + 60}&countback=2`,
      "/udf/history",
    );
    expect(back.body.t).toHaveLength(2);
    expect(back.body.t[1]).toBe(Number(now - (now % 60n)));
  });

  it("a history range of closed bars is cacheable with a strong ETag; one reaching the open bar is not", async () => {
    const H = "/udf/history";
    const to = Number(now - DAY);
    const path = `/udf/history?symbol=${tokenA}&resolution=60&from=${to - 7 * Number(DAY)}&to=${to}`;
    const closed = await get(path, H);
    expect(closed.headers.get("cache-control")).toBe("public, max-age=86400");
    const etag = closed.headers.get("etag") as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect((await get(path, H, { headers: { "If-None-Match": etag } })).status).toBe(304);
    const live = await get(
      `/udf/history?symbol=${tokenA}&resolution=60&from=${to}&to=${Number(now) + 60}`,
      H,
    );
    expect(live.headers.get("cache-control")).toBe("no-cache");
  });

  it("config, symbols by address or unique ticker, search, time", async () => {
    const config = (await get("/udf/config", "/udf/config")).body;
    expect(config.supported_resolutions).toEqual(["1", "5", "15", "60", "240", "1D"]);
    const a = (await get(`/tokens/${tokenA}`, "/tokens/{address}")).body.data;
    const sym = (await get(`/udf/symbols?symbol=${a.symbol}`, "/udf/symbols")).body;
    expect(sym).toMatchObject({ ticker: tokenA, currency_code: "BNB", type: "crypto" });
    const usdSym = (await get(`/udf/symbols?symbol=${tokenA}/USD`, "/udf/symbols")).body;
    expect(usdSym).toMatchObject({ ticker: `${tokenA}/USD`, currency_code: "USD" });
    const found = (await get(`/udf/search?query=${a.symbol.slice(0, 2)}`, "/udf/search")).body;
    expect(found.map((f: { ticker: string }) => f.ticker)).toContain(tokenA);
    const res = await requestAs(app, "/udf/time");
    const t = Number(await res.text());
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(5);
  });

  it.each([
    ["/udf/symbols?symbol=NOPE", 404],
    [`/udf/symbols?symbol=0x${"1".repeat(40)}`, 404],
    ["/udf/history?symbol=NOPE&resolution=60&from=1&to=2", 404],
    ["/udf/history?symbol=X&resolution=7&from=1&to=2", 400],
    ["/udf/history?symbol=X&resolution=60&from=5&to=5", 400],
    ["/udf/history?symbol=X&resolution=60&from=a&to=5", 400],
    ["/udf/symbols", 400],
  ])("%s is %i", async (path, status) => {
    const template = path.split("?")[0] as string;
    expect((await get(path, template)).status).toBe(status);
  });
});
