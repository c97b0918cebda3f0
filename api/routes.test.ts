import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import { createPublicClient, createWalletClient, http, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenManager2Abi } from "../abis/TokenManager2.ts";
import { devnetAccounts } from "../devnet/accounts.ts";
import { readDeploymentRecord } from "../devnet/record.ts";
import { type SeedDevnetReturnType, seedDevnet } from "../devnet/seed.ts";
import { viemChain } from "../lib/chain.ts";
import { createSql, type Sql } from "../lib/db/client.ts";
import { isolatedEnv, type Stack, startStack } from "../test/helpers/cli.ts";
import { type App, createApp } from "./app.ts";
import { rpcHeadBlock } from "./ops/indexer.ts";
import { defaultApiSettings } from "./settings.ts";
import { requestAs } from "./testing/client.ts";
import { responseChecker } from "./testing/openapi.ts";

// The chain-data routes against a real index: `launchpad start` (devnet, indexer, Postgres),
// the devnet seed (tokens, curve trades, a graduation with DEX swaps, a launched and a
// refunded deposit launch), then the app in-process on the stack's database.

let stack: Stack;
let sql: Sql;
let app: App;
let seed: SeedDevnetReturnType;
let check: ReturnType<typeof responseChecker>;
let rpcUrl: string;
let dataDir: string;
const v = (name: string) => sql`${sql("onchain")}.${sql(name)}`;

beforeAll(async () => {
  const env = await isolatedEnv();
  stack = await startStack(env);
  rpcUrl = `http://127.0.0.1:${env.DEVNET_PORT}`;
  dataDir = env.LAUNCHPAD_DATA_DIR;
  seed = await seedDevnet({ rpcUrl, dataDir: env.LAUNCHPAD_DATA_DIR, tokens: 3, trades: 40 });
  const head = await createPublicClient({ transport: http(rpcUrl) }).getBlockNumber();
  const pg = JSON.parse(readFileSync(join(env.LAUNCHPAD_DATA_DIR, "postgres.json"), "utf8"));
  sql = createSql(`postgres://launchpad:${pg.password}@127.0.0.1:${pg.port}/launchpad`);
  for (let i = 0; ; i++) {
    const [row] = await sql`select substring(latest_checkpoint, 27, 16)::bigint as b
      from ${v("_ponder_checkpoint")}`.catch(() => []);
    if (row && BigInt(row.b) >= head) break;
    if (i > 600) throw new Error(`the index did not reach block ${head}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  // Agents as the launch saga records them: the graduated token's and a live one's.
  await sql`insert into app.agents (agent_id, name, ticker, description, image_url, status, token_address, launched_at)
    values ('grad', 'Graduate', 'GRD', 'The agent whose token graduated.', 'https://img.example/g.png', 'pending', ${seed.graduatedToken.toLowerCase()}, now()),
           ('live', 'Live', 'LIV', 'An agent trading on its curve.', 'https://img.example/l.png', 'pending', ${seed.tokens[1]?.toLowerCase() ?? ""}, now() - interval '1 minute'),
           ('wait', 'Waiting', 'WAI', 'Token not created yet.', 'https://img.example/w.png', 'pending', ${`0x${"e".repeat(40)}`}, now() - interval '2 minutes')`;
  app = createApp({
    logger: pino({ level: "silent" }),
    env: "test",
    sql,
    settings: defaultApiSettings({ rpcUrls: [rpcUrl] }),
    headBlock: rpcHeadBlock([rpcUrl]),
  });
  check = responseChecker((await (await app.request("/openapi.json")).json()) as never);
}, 400_000);

afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await stack?.cleanup();
});

/** GET as a fresh client; asserts the body matches the documented schema of its status. */
async function get(path: string, template: string) {
  const res = await requestAs(app, path);
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the OpenAPI schema
  const body = (await res.json()) as any;
  expect(check(template, "get", res.status, body)).toEqual([]);
  return { status: res.status, body };
}

const lower = (a: string) => a.toLowerCase();

describe("tokens", () => {
  it("GET /tokens lists the seeded tokens, newest first or by volume", async () => {
    const { status, body } = await get("/tokens?limit=100", "/tokens");
    expect(status).toBe(200);
    const addresses = body.data.items.map((t: { address: string }) => t.address);
    for (const t of seed.tokens) expect(addresses).toContain(lower(t));
    expect(body.data.total).toBe(addresses.length);
    const byVolume = (await get("/tokens?sort=volume&limit=100", "/tokens")).body.data.items;
    const volumes = byVolume.map((t: { volume: string }) => BigInt(t.volume));
    expect(volumes).toEqual([...volumes].sort((a, b) => (b > a ? 1 : b < a ? -1 : 0)));
    const page = await get("/tokens?limit=1&offset=1", "/tokens");
    expect(page.body.data.items[0].address).toBe(addresses[1]);
  });

  it("GET /tokens/{address} gives price, market cap, holders, volume, progress, status, pair", async () => {
    const g = seed.graduatedToken;
    const { status, body } = await get(
      `/tokens/${g.toUpperCase().replace("0X", "0x")}`,
      "/tokens/{address}",
    );
    expect(status).toBe(200);
    const [row] = await sql`select * from ${v("token")} where address = ${lower(g)}`;
    expect(body.data).toMatchObject({
      address: lower(g),
      status: "graduated",
      curveProgressBps: 10_000,
      pair: row?.pair,
      price: String(row?.last_price),
      marketCap: String(row?.market_cap_bnb),
      holderCount: row?.holder_count,
      volume: String(row?.total_volume_bnb),
      tradeCount: row?.trade_count,
    });
    expect(BigInt(body.data.price)).toBeGreaterThan(0n);
    const live = (await get(`/tokens/${seed.tokens[1]}`, "/tokens/{address}")).body.data;
    expect(live.status).toBe("curve");
    expect(live.curveProgressBps).toBe(
      Number((BigInt(live.raised) * 10_000n) / BigInt(live.maxRaising)),
    );
  });

  it("unknown and malformed addresses are 404 and 400", async () => {
    expect((await get(`/tokens/0x${"1".repeat(40)}`, "/tokens/{address}")).status).toBe(404);
    expect((await get("/tokens/0x1234", "/tokens/{address}")).status).toBe(400);
    expect((await get("/tokens?sort=hot", "/tokens")).status).toBe(400);
    expect(
      (await get(`/tokens/0x${"1".repeat(40)}/trades`, "/tokens/{address}/trades")).status,
    ).toBe(404);
    expect(
      (await get(`/tokens/0x${"1".repeat(40)}/chart?interval=1h`, "/tokens/{address}/chart"))
        .status,
    ).toBe(404);
  });
});

describe("trades", () => {
  const T = "/tokens/{address}/trades";
  it("pages newest first through every trade of a token, without gaps or repeats", async () => {
    const token = lower(seed.graduatedToken);
    const seen: { blockNumber: string; logIndex: number; venue: string }[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${cursor}` : "";
      const { status, body } = await get(`/tokens/${token}/trades?limit=7${q}`, T);
      expect(status).toBe(200);
      expect(body.data.items.length).toBeLessThanOrEqual(7);
      seen.push(...body.data.items);
      cursor = body.data.nextCursor;
    } while (cursor);
    const [{ n }] =
      (await sql`select count(*)::int as n from ${v("trade")} where token = ${token}`) as unknown as [
        { n: number },
      ];
    expect(seen).toHaveLength(n);
    const keys = seen.map((t) => BigInt(t.blockNumber) * 100_000n + BigInt(t.logIndex));
    expect(keys).toEqual([...keys].sort((a, b) => (b > a ? 1 : b < a ? -1 : 0)));
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(seen.map((t) => t.venue))).toEqual(new Set(["curve", "dex"]));
  });

  it("a page after a cursor does not move while new trades arrive", async () => {
    const token = lower(seed.tokens[1] ?? "");
    const pages = async (cursor?: string) =>
      (await get(`/tokens/${token}/trades?limit=3${cursor ? `&cursor=${cursor}` : ""}`, T)).body
        .data;
    const first = await pages();
    const secondBefore = await pages(first.nextCursor);
    // A new curve buy, mined and indexed.
    const record = readDeploymentRecord(dataDir);
    const chain = viemChain({ id: 56, name: "devnet", rpcUrls: [rpcUrl] });
    const buyer = devnetAccounts().external[0];
    if (!record || !buyer) throw new Error("no devnet record or account");
    const wallet = createWalletClient({ account: buyer, chain, transport: http(rpcUrl) });
    const hash = await wallet.writeContract({
      address: record.contracts.tokenManager2,
      abi: tokenManager2Abi,
      functionName: "buyTokenAMAP",
      args: [token as `0x${string}`, parseEther("0.01"), 0n],
      value: parseEther("0.01"),
      gas: 400_000n,
    });
    for (let i = 0; ; i++) {
      const [row] = await sql`select 1 from ${v("trade")} where tx_hash = ${hash}`;
      if (row) break;
      if (i > 200) throw new Error("the new trade was not indexed");
      await new Promise((r) => setTimeout(r, 250));
    }
    // The items and the cursor stay; the envelope's block moved on with the index.
    const secondAfter = await pages(first.nextCursor);
    expect(secondAfter.items).toEqual(secondBefore.items);
    expect(secondAfter.nextCursor).toEqual(secondBefore.nextCursor);
    expect(BigInt(secondAfter.indexedBlock)).toBeGreaterThan(BigInt(secondBefore.indexedBlock));
    const fresh = await pages();
    expect(fresh.items[0].txHash).toBe(hash);
    expect(fresh.items[1]).toEqual(first.items[0]);
    // The block a read reflects: at least the new trade's, in the envelope and the header alike.
    expect(BigInt(fresh.indexedBlock)).toBeGreaterThanOrEqual(BigInt(fresh.items[0].blockNumber));
    const res = await requestAs(app, `/tokens/${token}/trades?limit=3`);
    expect(res.headers.get("x-indexed-block")).toBe(
      ((await res.json()) as { data: { indexedBlock: string } }).data.indexedBlock,
    );
    for (const path of [`/tokens/${token}`, `/tokens/${token}/chart?interval=1m`, "/tokens"]) {
      const r = await requestAs(app, path);
      expect(BigInt(r.headers.get("x-indexed-block") ?? "0")).toBeGreaterThanOrEqual(
        BigInt(fresh.items[0].blockNumber),
      );
      if (path === "/tokens") continue; // its body names the block: a new block is a new ETag
      // Nothing traded since: the same bytes in any later block, so a held ETag is a 304.
      const again = await requestAs(app, path, {
        init: { headers: { "if-none-match": r.headers.get("etag") ?? "" } },
      });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
    }
  });

  it.each(["limit=0", "limit=101", "cursor=abc!", "cursor=Zm9v", "cursor="])(
    "?%s is 400",
    async (q) => {
      const { status, body } = await get(`/tokens/${seed.tokens[0]}/trades?${q}`, T);
      expect(status).toBe(400);
      expect(body.error).toBe("validation_failed");
    },
  );
});

describe("chart", () => {
  const C = "/tokens/{address}/chart";
  it("candles add up to the token's trades, oldest first, in every interval", async () => {
    const token = lower(seed.graduatedToken);
    const [row] = await sql`select trade_count from ${v("token")} where address = ${token}`;
    for (const interval of ["1m", "5m", "15m", "1h", "1d"]) {
      const { status, body } = await get(
        `/tokens/${token}/chart?interval=${interval}&limit=1000`,
        C,
      );
      expect(status).toBe(200);
      const items = body.data.items as {
        time: string;
        tradeCount: number;
        high: string;
        low: string;
      }[];
      expect(items.reduce((s, c) => s + c.tradeCount, 0)).toBe(row?.trade_count);
      const times = items.map((c) => Date.parse(c.time));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      for (const c of items) expect(BigInt(c.high) >= BigInt(c.low)).toBe(true);
    }
  });

  it("from, to and limit select the latest candles in the window", async () => {
    const token = lower(seed.graduatedToken);
    const all = (await get(`/tokens/${token}/chart?interval=1m&limit=1000`, C)).body.data.items;
    const last = (await get(`/tokens/${token}/chart?interval=1m&limit=1`, C)).body.data.items;
    expect(last).toEqual(all.slice(-1));
    const first = all[0].time;
    const from = Math.floor(Date.parse(first) / 1000);
    const only = (await get(`/tokens/${token}/chart?interval=1m&from=${from}&to=${first}`, C)).body
      .data.items;
    expect(only).toEqual([all[0]]);
  });

  it.each([
    "",
    "interval=2m",
    "interval=1m&limit=1001",
    "interval=1m&from=yesterday",
    "interval=1m&from=200&to=100",
  ])("?%s is 400", async (q) => {
    const { status } = await get(`/tokens/${seed.tokens[0]}/chart?${q}`, C);
    expect(status).toBe(400);
  });
});

describe("agents joined with the index", () => {
  it("status follows the chain: graduated, active, pending until indexed", async () => {
    const { body } = await get("/v2/agents", "/v2/agents");
    const status = Object.fromEntries(
      body.data.items.map((a: { agentId: string; status: string }) => [a.agentId, a.status]),
    );
    expect(status).toEqual({ grad: "graduated", live: "active", wait: "pending" });
    expect((await get("/v2/agents?status=active", "/v2/agents")).body.data.total).toBe(1);
    const d = await get(`/v2/agents/${seed.graduatedToken}`, "/v2/agents/{agent}");
    expect(d.body.data).toMatchObject({ agentId: "grad", status: "graduated" });
  });
});

describe("launches", () => {
  it("lists, filters and shows deposit launches by id or vault", async () => {
    const { status, body } = await get("/v2/launches", "/v2/launches");
    expect(status).toBe(200);
    const vaults = body.data.items.map((l: { vault: string }) => l.vault);
    expect(vaults).toEqual(
      expect.arrayContaining([lower(seed.launchedVault), lower(seed.refundedVault)]),
    );
    const launched = await get("/v2/launches?status=launched", "/v2/launches");
    expect(launched.body.data.items.map((l: { vault: string }) => l.vault)).toEqual([
      lower(seed.launchedVault),
    ]);
    const l = launched.body.data.items[0];
    expect(l.token).toMatch(/^0x[0-9a-f]{40}$/);
    expect(
      (
        await get(
          `/v2/launches?tier=${l.tier}&creator=${l.creator.toUpperCase().replace("0X", "0x")}`,
          "/v2/launches",
        )
      ).body.data.items.map((x: { vault: string }) => x.vault),
    ).toContain(l.vault);
    expect((await get(`/v2/launches/${l.id}`, "/v2/launches/{id}")).body.data).toEqual(l);
    expect((await get(`/v2/launches/${l.vault}`, "/v2/launches/{id}")).body.data).toEqual(l);
    expect((await get("/v2/launches/999999", "/v2/launches/{id}")).status).toBe(404);
  });

  it("depositors carry principal and claimed; users see what they created or funded", async () => {
    const vault = lower(seed.launchedVault);
    const { body } = await get(
      `/v2/launches/${vault}/depositors?limit=100`,
      "/v2/launches/{id}/depositors",
    );
    expect(body.data.total).toBeGreaterThan(0);
    const d = body.data.items[0];
    expect(BigInt(d.principal)).toBeGreaterThan(0n);
    expect(BigInt(d.claimed)).toBeGreaterThanOrEqual(0n);
    const mine = await get(`/v2/users/${d.account}/launches`, "/v2/users/{address}/launches");
    const entry = mine.body.data.items.find((l: { vault: string }) => l.vault === vault);
    expect(entry).toMatchObject({ created: false, principal: d.principal });
    const [launch] = await sql`select creator from ${v("launch")} where vault = ${vault}`;
    const theirs = await get(
      `/v2/users/${launch?.creator}/launches`,
      "/v2/users/{address}/launches",
    );
    expect(theirs.body.data.items.find((l: { vault: string }) => l.vault === vault)?.created).toBe(
      true,
    );
    expect(
      (await get("/v2/launches/999999/depositors", "/v2/launches/{id}/depositors")).status,
    ).toBe(404);
  });

  it.each([
    ["/v2/launches?status=live", "/v2/launches"],
    ["/v2/launches?tier=gold", "/v2/launches"],
    ["/v2/launches?creator=0x12", "/v2/launches"],
    ["/v2/launches/abc", "/v2/launches/{id}"],
    ["/v2/launches/1/depositors?offset=-5", "/v2/launches/{id}/depositors"],
    ["/v2/users/nobody/launches", "/v2/users/{address}/launches"],
  ])("%s is 400", async (path, template) => {
    expect((await get(path, template)).status).toBe(400);
  });
});

describe("GET /v2/indexer/status", () => {
  it("reports the indexed block, the head and the lag", async () => {
    const { body } = await get("/v2/indexer/status", "/v2/indexer/status");
    expect(body.data).toMatchObject({ published: true, ready: true });
    const [chain] = body.data.chains;
    expect(chain).toMatchObject({ chainId: 56 });
    expect(BigInt(chain.headBlock)).toBeGreaterThanOrEqual(BigInt(chain.indexedBlock));
    expect(chain.lag).toBe(Number(BigInt(chain.headBlock) - BigInt(chain.indexedBlock)));
  });
});
