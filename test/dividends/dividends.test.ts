import { spawn } from "node:child_process";
import { join } from "node:path";
import pino from "pino";
import { type Address, erc20Abi, type Hex, type LocalAccount, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { taxTokenAbi } from "../../abis/TaxToken.ts";
import { createApp } from "../../api/app.ts";
import { startServer } from "../../api/server.ts";
import { defaultApiSettings } from "../../api/settings.ts";
import { attachWebSocket } from "../../api/ws/bridge.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { runDividendKeeper } from "../../jobs/dividends/keeper.ts";
import { createSql, type Sql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { createDividendToken, dexRound, sendFrom } from "../helpers/dividend-token.ts";
import { type IndexerWorld, startIndexerWorld } from "../helpers/indexer-world.ts";
import type { PonderRun } from "../helpers/ponder.ts";
import { client, signIn, WEB } from "../sessions/helpers.ts";
import { WsClient } from "../ws/client.ts";

// Issue 51 item 4, "done when": a wallet's dividends claimable equal the token's own
// claimableFee, every tax figure equals the sums of the token's own logs, and a claim by the
// keeper for a wallet that opted in with its SIWE session moves them to claimed, once, even when
// the keeper is killed between storing its claim and sending it, and reaches the wallet's
// `dividends` WebSocket channel. A four.meme tax token with a holder share (10 % tax, half to the
// treasury, half to holders), graduated to the DEX, traded there; the real indexer (Ponder), the
// API over HTTP with its WebSocket bridge, and the keeper against anvil and Postgres.

const SCHEMA = "div_idx";
let w: IndexerWorld;
let run: PonderRun;
let sql: Sql;
let token: Address;
let app: ReturnType<typeof createApp>;
let apiUrl: string;
const closers: (() => Promise<unknown>)[] = [];
const acc = devnetAccounts();
const [creator, alice, bob, trader, stranger] = acc.external as unknown as [
  LocalAccount,
  LocalAccount,
  LocalAccount,
  LocalAccount,
  LocalAccount,
];
const treasury = "0x00000000000000000000000000000000000fee01" as Address;
/** A keeper budget that never holds a claim back: any amount, a whole BNB of gas a day. */
const GENEROUS = {
  minClaimWei: 1n,
  dailyBudgetWei: 10n ** 18n,
  maxTxsPerRound: 10,
  maxAccountsPerTx: 100,
};

const send = (from: LocalAccount, call: { to: Address; data: Hex }) => sendFrom(w, from, call);
const read = <T>(functionName: string, args: unknown[] = [], blockNumber?: bigint) =>
  w.client.readContract({
    address: token,
    abi: taxTokenAbi,
    functionName,
    args,
    blockNumber,
  } as never) as Promise<T>;
const get = async (path: string) => {
  const res = await app.request(path);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const indexed = async () => run.waitFor(await w.head());
const logsOf = (eventName: "FeeDispatched" | "FeeClaimed") =>
  w.client.getContractEvents({ address: token, abi: taxTokenAbi, eventName, fromBlock: 0n });

beforeAll(async () => {
  w = await startIndexerWorld("dividends-test-");
  sql = createSql(w.pg.url, { appName: "dividends-test" });
  await migrate(sql);
  token = await createDividendToken(w, {
    name: "Dividend Agent",
    symbol: "DIV",
    requestId: 51n,
    creator,
    treasury,
    holders: [alice, bob],
    trader,
    rounds: 3,
  });
  expect((await logsOf("FeeDispatched")).length).toBeGreaterThan(0);
  run = await w.ponder(SCHEMA);
  await indexed();
  const logger = pino({ level: "silent" });
  app = createApp({
    logger,
    env: "test",
    sql,
    settings: defaultApiSettings({
      rpcUrls: [w.anvil.rpcUrl],
      viewsSchema: SCHEMA,
      webUrl: WEB,
      rateLimit: { unauthenticated: 100_000, authenticated: 100_000 },
    }),
  });
  const server = await startServer({ app, host: "127.0.0.1", port: 0, logger });
  const ws = await attachWebSocket({
    server: server.server,
    sql,
    viewsSchema: SCHEMA,
    trustProxy: 0,
    logger,
  });
  closers.push(ws.close, server.close);
  apiUrl = `http://127.0.0.1:${(server.server.address() as { port: number }).port}`;
}, 300_000);
afterAll(async () => {
  for (const close of closers) await close().catch(() => {});
  await sql?.end({ timeout: 1 });
  await w?.stop();
});

describe("tax income and dividends", () => {
  it("per token: every figure is the sum of the token's own logs and its views", async () => {
    const dispatched = await logsOf("FeeDispatched");
    const sum = (k: "amountFounder" | "amountHolder" | "quoteFounder" | "quoteHolder") =>
      dispatched.reduce((s, l) => s + ((l.args as Record<string, bigint>)[k] ?? 0n), 0n).toString();
    const r = await get(`/tokens/${token}/tax`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const wbnb = await w.client.readContract({
      address: w.record.contracts.wbnb,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [token],
    });
    expect(r.body.data).toMatchObject({
      dispatches: dispatched.length,
      taxDispatched: {
        treasury: sum("amountFounder"),
        holders: sum("amountHolder"),
        burn: "0",
        liquidity: "0",
      },
      treasuryBnb: sum("quoteFounder"),
      dividends: {
        accruedBnb: sum("quoteHolder"),
        claimedBnb: "0",
        unclaimedBnb: wbnb.toString(),
        claims: 0,
      },
    });
    expect(r.body.data.dividends.accruedBnb).toBe((await read<bigint>("feeHolder")).toString());
    expect(r.body.data.treasuryBnb).toBe((await read<bigint>("feeFounder")).toString());
    expect(BigInt(r.body.data.treasuryBnb)).toBeGreaterThan(0n);
    // The token list sorts by that income, and each record carries it: the logs' sum.
    const income = (BigInt(sum("quoteFounder")) + BigInt(sum("quoteHolder"))).toString();
    expect(r.body.data.incomeBnb).toBe(income);
    const list = await get("/tokens?sort=taxIncome");
    expect(list.status).toBe(200);
    expect(list.body.data.items[0]).toMatchObject({ address: token, taxIncomeBnb: income });
    expect((await get(`/tokens/${token}`)).body.data.taxIncomeBnb).toBe(income);
    expect((await get("/tokens/0x0000000000000000000000000000000000000001/tax")).status).toBe(404);
  });

  it("per wallet: claimable is the token's own claimableFee, and the claim transaction pays it to the holder whoever sends it", async () => {
    const r = await get(`/v2/users/${alice.address}/dividends`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const at = BigInt(r.body.data.indexedBlock);
    const owed = await read<bigint>("claimableFee", [alice.address], at);
    expect(owed).toBeGreaterThan(0n);
    expect(r.body.data).toMatchObject({
      autoClaim: false,
      claimableBnb: owed.toString(),
      claimedBnb: "0",
    });
    expect(r.body.data.items).toEqual([
      {
        token,
        name: "Dividend Agent",
        symbol: "DIV",
        claimableBnb: owed.toString(),
        claimedBnb: "0",
      },
    ]);
    const bad = await get("/v2/users/0x123/dividends");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("validation_failed");

    const tx = await get(`/v2/users/${alice.address}/dividends/claim-transaction`);
    expect(tx.body.data).toMatchObject({ claimableBnb: owed.toString(), tokens: [token] });
    const receipt = await send(stranger, {
      to: tx.body.data.transaction.to,
      data: tx.body.data.transaction.data,
    });
    const [claimed] = parseEventLogs({
      abi: taxTokenAbi,
      logs: receipt.logs,
      eventName: "FeeClaimed",
    });
    expect(claimed?.args).toEqual({ account: alice.address, amount: owed });
    await indexed();
    const after = await get(`/v2/users/${alice.address}/dividends`);
    expect(after.body.data).toMatchObject({ claimableBnb: "0", claimedBnb: owed.toString() });
    expect(
      (await get(`/v2/users/${alice.address}/dividends/claim-transaction`)).body.data.transaction,
    ).toBeNull();
  });

  it("the keeper claims once for a holder who opted in with its SIWE session, even killed between storing and sending, and the claim reaches the holder's socket", async () => {
    const call = client(apiUrl);
    const optIn = "/v2/users/me/dividends/auto-claim";
    expect((await call("PUT", optIn)).status).toBe(401);
    const session = await signIn(apiUrl, bob);
    expect(session.status, JSON.stringify(session.body)).toBe(200);
    const optedIn = () => sql`select address from app.dividend_auto_claims`;
    // Another site's page cannot opt the wallet in with its cookie.
    const forged = await call("PUT", optIn, {
      cookie: session.cookie,
      headers: { origin: "https://elsewhere.example" },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error).toBe("not_authorized");
    expect(await optedIn()).toEqual([]);
    const put = await call("PUT", optIn, { cookie: session.cookie, headers: { origin: WEB } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.data).toMatchObject({ address: bob.address.toLowerCase(), autoClaim: true });
    expect(await optedIn()).toEqual([{ address: bob.address.toLowerCase() }]);

    const socket = await WsClient.open(`${apiUrl.replace("http", "ws")}/ws`);
    closers.unshift(async () => socket.ws.close());
    const ack = await socket.request({ type: "subscribe", channel: "dividends", id: bob.address });
    expect(ack).toMatchObject({
      type: "subscribed",
      channel: `dividends.${bob.address.toLowerCase()}`,
    });
    const owed = await read<bigint>("claimableFee", [bob.address]);
    expect(owed).toBeGreaterThan(0n);
    const killed = spawn(
      process.execPath,
      [join(import.meta.dirname, "keeper-kill.ts"), w.pg.url, w.anvil.rpcUrl, SCHEMA],
      { stdio: "inherit" },
    );
    const signal = await new Promise((resolve) => killed.on("exit", (_code, s) => resolve(s)));
    expect(signal).toBe("SIGKILL");
    const stored = await sql<
      { tx_hash: Hex; status: string }[]
    >`select tx_hash, status from app.dividend_claim_txs`;
    expect(stored).toHaveLength(1);
    expect(stored[0]?.status).toBe("sent");
    // Stored, never broadcast: the chain still owes bob everything.
    expect(await read<bigint>("claimableFee", [bob.address])).toBe(owed);

    const relayer = {
      sql,
      log: pino({ level: "silent" }),
      client: w.client,
      relayer: acc.relayer,
      chain: { id: 56 },
    };
    const budget = GENEROUS;
    const round = await runDividendKeeper({ relayer, viewsSchema: SCHEMA, budget });
    expect(round).toMatchObject({ settled: 1, sent: [] });
    const again = await runDividendKeeper({ relayer, viewsSchema: SCHEMA, budget });
    expect(again.sent).toEqual([]);
    const claims = (await logsOf("FeeClaimed"))
      .map((l) => ({
        hash: l.transactionHash,
        ...(l.args as { account: Address; amount: bigint }),
      }))
      .filter((l) => l.account === bob.address);
    expect(claims.map((l) => [l.hash, l.amount])).toEqual([[stored[0]?.tx_hash, owed]]);
    const [row] = await sql<
      { status: string; fee: string }[]
    >`select status, fee::text from app.dividend_claim_txs`;
    const receipt = await w.client.getTransactionReceipt({ hash: stored[0]?.tx_hash as Hex });
    expect(row).toEqual({
      status: "mined",
      fee: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
    });

    await indexed();
    const view = await get(`/v2/users/${bob.address}/dividends`);
    expect(view.body.data).toMatchObject({
      autoClaim: true,
      claimableBnb: "0",
      claimedBnb: owed.toString(),
    });
    const tax = await get(`/tokens/${token}/tax`);
    const wbnb = await w.client.readContract({
      address: w.record.contracts.wbnb,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [token],
    });
    expect(tax.body.data.dividends.unclaimedBnb).toBe(wbnb.toString());
    expect(tax.body.data.dividends.claims).toBe(2);

    // Pushed to bob's channel once indexed: the keeper's claim, exactly the token's log.
    const [log] = claims;
    const pushed = await socket.waitFor((m) => m.type === "dividendClaimed", "the claim");
    expect(pushed.data).toMatchObject({
      token,
      account: bob.address.toLowerCase(),
      amountBnb: owed.toString(),
      txHash: log?.hash,
    });
    expect(socket.of("dividendClaimed")).toHaveLength(1);
  });

  it("spends nothing over its daily gas budget", async () => {
    await dexRound(w, token, trader);
    expect(await read<bigint>("claimableFee", [bob.address])).toBeGreaterThan(0n);
    await indexed();
    const relayer = {
      sql,
      log: pino({ level: "silent" }),
      client: w.client,
      relayer: acc.relayer,
      chain: { id: 56 },
    };
    const [spent] = await sql<
      { s: string }[]
    >`select sum(fee)::text as s from app.dividend_claim_txs`;
    const r = await runDividendKeeper({
      relayer,
      viewsSchema: SCHEMA,
      budget: {
        minClaimWei: 1n,
        dailyBudgetWei: BigInt(spent?.s ?? "0") + 1n,
        maxTxsPerRound: 10,
        maxAccountsPerTx: 100,
      },
    });
    expect(r).toMatchObject({ sent: [], held: "budget" });
    expect(await sql`select 1 from app.dividend_claim_txs`).toHaveLength(1);

    // Opted out with its session, bob is no one the keeper claims for, whatever its budget.
    const session = await signIn(apiUrl, bob);
    const out = await client(apiUrl)("DELETE", "/v2/users/me/dividends/auto-claim", {
      cookie: session.cookie,
      headers: { origin: WEB },
    });
    expect(out.body.data).toMatchObject({ autoClaim: false, since: null });
    expect(await sql`select address from app.dividend_auto_claims`).toEqual([]);
    const after = await runDividendKeeper({ relayer, viewsSchema: SCHEMA, budget: GENEROUS });
    expect(after).toMatchObject({ sent: [] });
    expect(after.held).toBeUndefined();
    expect((await get(`/v2/users/${bob.address}/dividends`)).body.data.autoClaim).toBe(false);
  });
});
