import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { type Address, createTestClient, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { responseChecker } from "../../api/testing/openapi.ts";
import { readDeploymentRecord } from "../../devnet/record.ts";
import { freePort } from "../../lib/local/net.ts";
import {
  cleanEnv,
  isolatedEnv,
  ROOT,
  runCli,
  type Stack,
  startStack,
  waitFor,
} from "../helpers/cli.ts";
import { nextIp, stackSql } from "../helpers/launch.ts";
import { tradeBurst } from "../helpers/scenario-burst.ts";
import { WsClient, type WsMessage } from "./client.ts";

// The bridge through the real stack: `launchpad start` (anvil with the real contracts, Ponder,
// Postgres, the API) plus a second `launchpad api` process on the same database. Clients on
// both processes must see every message exactly once, equal to what the REST endpoints say.

let stack: Stack | undefined;
let api2: ChildProcess | undefined;
let api2Out = "";
let env: Record<string, string>;
let urls: { http1: string; ws1: string; http2: string; ws2: string };
let check: ReturnType<typeof responseChecker>;
const clients: WsClient[] = [];

async function connect(url: string) {
  const c = await WsClient.open(url);
  clients.push(c);
  return c;
}

async function get(path: string) {
  // Each poll is its own client IP (TRUST_PROXY=1), so polling never meets the rate limit.
  const res = await fetch(`${urls.http1}${path}`, { headers: { "x-forwarded-for": nextIp() } });
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the OpenAPI below
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  env = { ...(await isolatedEnv()), TRUST_PROXY: "1" };
  stack = await startStack(env);
  const port2 = await freePort();
  api2 = spawn(process.execPath, [join(ROOT, "bin", "launchpad.js"), "api"], {
    cwd: ROOT,
    env: cleanEnv({ ...env, PORT: String(port2) }),
  });
  api2.stdout?.on("data", (d) => (api2Out += d));
  api2.stderr?.on("data", (d) => (api2Out += d));
  urls = {
    http1: stack.apiUrl,
    ws1: `${stack.apiUrl.replace("http", "ws")}/ws`,
    http2: `http://127.0.0.1:${port2}`,
    ws2: `ws://127.0.0.1:${port2}/ws`,
  };
  await waitFor("the second API process", async () => {
    const r = await fetch(`${urls.http2}/health`);
    return r.ok ? true : undefined;
  });
  // The chain channels need the published views (Ponder's first backfill).
  await waitFor(
    "the views",
    async () => ((await get("/tokens")).status === 200 ? true : undefined),
    180_000,
  );
  check = responseChecker((await (await fetch(`${urls.http1}/openapi.json`)).json()) as never);
}, 300_000);

afterAll(async () => {
  for (const c of clients) c.close();
  api2?.kill("SIGKILL");
  await stack?.cleanup();
});

const launchChecks = (data: unknown) =>
  check("/v2/launches", "get", 200, {
    ok: true,
    data: { items: [data], total: 1, limit: 1, offset: 0, indexedBlock: null },
  });
const tradeChecks = (data: unknown) =>
  check("/tokens/{address}/trades", "get", 200, {
    ok: true,
    data: { items: [data], nextCursor: null, indexedBlock: null },
  });

describe("WebSocket bridge on the real stack, two API processes", () => {
  let launches: WsMessage[][] = [];

  it("the banner's WebSocket URL is served", () => {
    expect(stack?.output()).toContain(`WebSocket  ${urls.ws1}\n`);
  });

  it("factory: launchCreated reaches a client on each process exactly once; launch: its events replay from that cursor", async () => {
    const [a, b] = [await connect(urls.ws1), await connect(urls.ws2)];
    for (const c of [a, b])
      expect((await c.request({ type: "subscribe", channel: "factory" })).type).toBe("subscribed");
    const seed = await runCli(["devnet", "seed", "--tokens", "2", "--trades", "10"], env, 400_000);
    expect(seed.code).toBe(0);
    const rest = await waitFor("both launches", async () => {
      const r = await get("/v2/launches?limit=100");
      return r.body.data?.total >= 2 ? r.body.data.items : undefined;
    });
    for (const c of [a, b])
      await c.waitCount(() => c.of("launchCreated").length, rest.length, "launches");
    await new Promise((r) => setTimeout(r, 1_500));
    launches = [a.of("launchCreated"), b.of("launchCreated")];
    for (const got of launches) {
      expect(got.map((m) => m.data.id).sort()).toEqual(
        rest.map((l: { id: string }) => l.id).sort(),
      );
      for (const m of got) {
        expect(m.channel).toBe("factory");
        expect(launchChecks(m.data)).toEqual([]);
        const now = rest.find((l: { id: string }) => l.id === m.data.id);
        // Totals move after creation; everything set at creation is equal.
        const {
          totalDeposited,
          depositorCount,
          totalClaimed,
          totalRefunded,
          status,
          token,
          pair,
          tokensForDepositors,
          liquidityBnb,
          liquidityTokens,
          ...fixed
        } = now;
        expect(m.data).toMatchObject(fixed);
      }
    }

    // A launch channel resumed from its launchCreated cursor replays the launch's vault events.
    const sql = stackSql(env.LAUNCHPAD_DATA_DIR as string);
    const types: Record<string, string> = {
      launch_executed: "launchExecuted",
      refund_enabled: "refundEnabled",
    };
    const seenTypes = new Set<string>();
    for (const [i, created] of (launches[0] ?? []).entries()) {
      const c = i % 2 === 0 ? a : b;
      const id =
        i % 2 === 0 ? created.data.id : created.data.vault.toUpperCase().replace("0X", "0x");
      const ack = await c.request({
        type: "subscribe",
        channel: "launch",
        id,
        since: created.cursor,
      });
      expect(ack).toMatchObject({ type: "subscribed", channel: `launch.${created.data.id}` });
      const rows = await sql`select * from onchain.launch_event where vault = ${created.data.vault}
        order by block_number, log_index`;
      expect(rows.length).toBeGreaterThan(0);
      expect(ack.data.replayed).toBe(rows.length);
      const channel = `launch.${created.data.id}`;
      await c.waitCount(
        () => c.messages.filter((m) => m.channel === channel && m.type !== "subscribed").length,
        rows.length,
        "launch events",
      );
      const got = c.messages.filter((m) => m.channel === channel && m.type !== "subscribed");
      expect(got.map((m) => m.type)).toEqual(rows.map((r) => types[r.kind] ?? r.kind));
      expect(got.map((m) => m.data.txHash)).toEqual(rows.map((r) => r.tx_hash));
      for (const m of got) {
        seenTypes.add(m.type);
        expect(m.data).toMatchObject({ launchId: created.data.id, vault: created.data.vault });
        expect(m.data.blockNumber).toMatch(/^\d+$/);
        expect(Date.parse(m.data.timestamp)).toBeGreaterThan(0);
      }
    }
    for (const t of ["deposited", "launchExecuted", "claimed", "refundEnabled", "refunded"])
      expect(seenTypes).toContain(t);
    await sql.end();
  }, 500_000);

  let token: Address;
  let traders: [WsClient, WsClient];

  it("token: an on-chain trade reaches a subscriber on each process once, equal to the trades endpoint", async () => {
    const tokens = (await get("/tokens?limit=100")).body.data.items as {
      address: Address;
      status: string;
    }[];
    token = tokens.find((t) => t.status === "curve")?.address as Address;
    expect(token).toBeDefined();
    const before = (await get(`/tokens/${token}/trades?limit=100`)).body.data.items.length;
    traders = [await connect(urls.ws1), await connect(urls.ws2)];
    for (const c of traders) {
      const ack = await c.request({
        type: "subscribe",
        channel: "token",
        id: token.toUpperCase().replace("0X", "0x"),
      });
      expect(ack).toMatchObject({ type: "subscribed", channel: `token.${token}` });
    }
    const record = readDeploymentRecord(env.LAUNCHPAD_DATA_DIR as string);
    const rpcUrl = `http://127.0.0.1:${env.DEVNET_PORT}`;
    await tradeBurst({
      rpcUrl,
      record: record as never,
      seed: 101,
      curveTokens: [token],
      count: 4,
    });
    const fresh = await waitFor("the trades indexed", async () => {
      const items = (await get(`/tokens/${token}/trades?limit=100`)).body.data.items;
      return items.length >= before + 3
        ? items.slice(0, items.length - before).reverse()
        : undefined;
    });
    for (const c of traders) {
      await c.waitCount(() => c.of("trade").length, fresh.length, "trades");
      await new Promise((r) => setTimeout(r, 1_000));
      expect(c.of("trade").map((m) => m.data)).toEqual(fresh);
      for (const m of c.of("trade")) expect(tradeChecks(m.data)).toEqual([]);
    }
  }, 120_000);

  it("resume: a cursor from one process replays the gap on the other, then live, no duplicate", async () => {
    const [first] = traders[0].of("trade");
    const c = await connect(urls.ws2);
    const ack = await c.request({
      type: "subscribe",
      channel: "token",
      id: token,
      since: first?.cursor,
    });
    const gap = traders[0].of("trade").length - 1;
    expect(ack.data.replayed).toBe(gap);
    const record = readDeploymentRecord(env.LAUNCHPAD_DATA_DIR as string);
    const rpcUrl = `http://127.0.0.1:${env.DEVNET_PORT}`;
    await tradeBurst({
      rpcUrl,
      record: record as never,
      seed: 102,
      curveTokens: [token],
      count: 2,
    });
    const all = await waitFor("the trades indexed", async () => {
      const items = (await get(`/tokens/${token}/trades?limit=100`)).body.data.items.reverse();
      const i = items.findIndex((t: { txHash: string }) => t.txHash === first?.data.txHash);
      const after = items.slice(i + 1);
      // The gap, then the burst's two buys (its third transaction would be a transfer).
      return after.length >= gap + 2 ? after : undefined;
    });
    await c.waitCount(() => c.of("trade").length, all.length, "trades");
    await new Promise((r) => setTimeout(r, 1_000));
    expect(c.of("trade").map((m) => m.data)).toEqual(all);
  }, 120_000);

  it("reorg: trades dropped by the indexer are named in `removed`; the rest equals the endpoint", async () => {
    const rpcUrl = `http://127.0.0.1:${env.DEVNET_PORT}`;
    const test = createTestClient({ mode: "anvil", transport: http(rpcUrl) });
    const record = readDeploymentRecord(env.LAUNCHPAD_DATA_DIR as string);
    const [a, b] = [await connect(urls.ws1), await connect(urls.ws2)];
    for (const c of [a, b]) await c.request({ type: "subscribe", channel: "token", id: token });
    const snapshot = await test.snapshot();
    await tradeBurst({
      rpcUrl,
      record: record as never,
      seed: 103,
      curveTokens: [token],
      count: 2,
    });
    for (const c of [a, b])
      await c.waitCount(() => c.of("trade").length, 2, "trades before the reorg", 30_000);
    const doomed = a.of("trade").map((m) => m.data.txHash);
    await test.revert({ id: snapshot });
    await tradeBurst({
      rpcUrl,
      record: record as never,
      seed: 104,
      curveTokens: [token],
      count: 1,
    });
    await test.mine({ blocks: 3 });
    for (const c of [a, b]) {
      await c.waitCount(() => c.of("removed").length, doomed.length, "removed", 60_000);
      await c.waitCount(
        () => c.of("trade").length,
        doomed.length + 1,
        "trades after the reorg",
        60_000,
      );
      await new Promise((r) => setTimeout(r, 1_000));
      expect(
        c
          .of("removed")
          .map((m) => m.data.txHash)
          .sort(),
      ).toEqual([...doomed].sort());
      for (const m of c.of("removed")) expect(m.channel).toBe(`token.${token}`);
      const kept = c.of("trade").filter((m) => !doomed.includes(m.data.txHash));
      const items = (await get(`/tokens/${token}/trades?limit=100`)).body.data.items;
      expect(kept.map((m) => m.data)).toEqual(items.slice(0, kept.length).reverse());
      expect(items.map((t: { txHash: string }) => t.txHash)).not.toContain(doomed[0]);
    }
  }, 180_000);

  it("Ctrl-C closes the sockets with 1001", async () => {
    const c = await connect(urls.ws1);
    await c.request({ type: "subscribe", channel: "factory" });
    expect(await stack?.stop("SIGINT")).toBe(0);
    expect(await c.waitClose()).toEqual({ code: 1001, reason: "server shutting down" });
  }, 60_000);
});
