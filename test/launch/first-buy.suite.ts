import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type Address,
  createWalletClient,
  getAbiItem,
  type Hash,
  http,
  parseEther,
  parseEventLogs,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { LAUNCH_REPORT } from "../../lib/limits.ts";
import type { Stack } from "../helpers/cli.ts";
import {
  type Agent,
  bearer,
  chainClient,
  createAgentCli,
  launch,
  launchBody,
  nextIp,
  readRecord,
} from "../helpers/launch.ts";
import { sharedStack } from "../helpers/shared-stack.ts";

// what: An agent's first buy at launch and its launch report on a real stack: the preview's tokens, the answer's and the chain's agree; a bundle of freshly funded wallets buying in the first blocks is named as one, a lone funded sniper is not, the creator's buy is apart, every figure recomputed from raw logs and contract reads; anti-sniper fees on by default (off on request, through MCP)
// The shared stack (test/shared-stack.test.ts): its own agents, wallets and tokens only.

let stack: Stack;
let env: Record<string, string>;
let image: string;
let client: ReturnType<typeof chainClient>;
let tm: Address;

const external = devnetAccounts().external;
const TOTAL_SUPPLY = 10n ** 27n;
/** An answer's JSON, read field by field below and checked against the OpenAPI schema by other suites. */
// biome-ignore lint/suspicious/noExplicitAny: JSON answers, read by the assertions
type Json = Record<string, any>;
const FIRST_BUY = parseEther("0.05");

beforeAll(async () => {
  ({ stack, env, ownImage: image } = await sharedStack());
  client = chainClient(env);
  tm = readRecord(env.LAUNCHPAD_DATA_DIR as string).contracts.tokenManager2 as Address;
}, 240_000);

const rpc = () => http(`http://127.0.0.1:${env.DEVNET_PORT}`);
const get = async (path: string) => {
  const res = await fetch(`${stack.apiUrl}${path}`, { headers: { "x-forwarded-for": nextIp() } });
  return { status: res.status, body: (await res.json()) as Json };
};

async function preview(a: Agent, body: Record<string, unknown>) {
  const res = await fetch(`${stack.apiUrl}/v2/agents/launch/preview`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": nextIp(), ...bearer(a) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** The token `creator` creates from `fromBlock` on, as soon as TokenCreate is mined. */
async function tokenCreatedBy(creator: string, fromBlock: bigint): Promise<Address> {
  const event = getAbiItem({ abi: tokenManager2Abi, name: "TokenCreate" });
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const logs = await client.getLogs({ address: tm, event, fromBlock });
    const mine = logs.find((l) => l.args.creator?.toLowerCase() === creator);
    if (mine) return mine.args.token?.toLowerCase() as Address;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no TokenCreate by ${creator}`);
}

/** `path` once `done` holds, polled. */
async function until(path: string, done: (body: Json) => boolean) {
  let last: { status: number; body: Json } | undefined;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    last = await get(path);
    if (last.status === 200 && done(last.body)) return last.body;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${path} never got there: ${JSON.stringify(last)}`);
}

const ex1 = (token: Address) =>
  client.readContract({
    address: tm,
    abi: tokenManager2Abi,
    functionName: "_tokenInfoEx1s",
    args: [token],
  });

describe("first buy and launch report", () => {
  it("through MCP: launch_agent takes the first buy and anti-sniper off; above the cap is refused and changes nothing", async () => {
    const a = await createAgentCli(env, "first-buy-mcp");
    const mcp = new Client({ name: "test", version: "1.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.apiUrl}/mcp`), {
        requestInit: { headers: { ...bearer(a), "x-forwarded-for": nextIp() } },
      }),
    );
    const over = await mcp.callTool({
      name: "launch_agent",
      arguments: launchBody(a, image, { firstBuyWei: String(parseEther("0.1") + 1n) }),
    });
    expect(over.structuredContent).toMatchObject({
      status: 400,
      error: "INVALID_REQUEST",
      details: [{ path: "firstBuyWei" }],
    });
    expect((await get(`/v2/agents/${a.agentId}`)).status).toBe(404);
    const ok = await mcp.callTool({
      name: "launch_agent",
      arguments: launchBody(a, image, { firstBuyWei: FIRST_BUY.toString(), antiSniper: false }),
    });
    await mcp.close();
    expect(ok.isError).toBe(false);
    const d = (ok.structuredContent as { data: Json }).data;
    expect(d.antiSniper).toBe(false);
    const [own] = parseEventLogs({
      abi: tokenManager2Abi,
      eventName: "TokenPurchase",
      logs: (await client.getTransactionReceipt({ hash: d.txHash })).logs,
    });
    expect(d.firstBuy.tokens).toBe(String(own?.args.amount));
    expect((await ex1(d.tokenAddress))[2]).toBe(0n);
    const report = (
      await until(`/tokens/${d.tokenAddress}/launch-report`, (b) => b.data?.final === true)
    ).data;
    expect(report).toMatchObject({
      antiSniper: false,
      creatorBuy: { tokenAmount: String(own?.args.amount), firstBlockOffset: 0 },
      buyers: [],
      bundles: [],
    });
  }, 180_000);

  // The preview prices a first buy on the curve of the newest BNB-raise token: on a stack with
  // none yet (this suite alone), the MCP launch above is that token.
  it("a launch with a first buy and anti-sniper on: the preview's tokens are the answer's and the chain's; a bundle of freshly funded wallets buying in the first blocks is named as one, a lone funded sniper is not, the creator's buy apart", async () => {
    const a = await createAgentCli(env, "first-buy-agent");
    const body = launchBody(a, image, { firstBuyWei: FIRST_BUY.toString() });
    const dry = await preview(a, body);
    expect(dry.status).toBe(200);
    const wallet = dry.body.data.walletAddress as string;
    expect(dry.body.data.antiSniper).toBe(true);
    expect(dry.body.data.firstBuy).toMatchObject({ bnbWei: FIRST_BUY.toString() });
    const quoted = BigInt(dry.body.data.firstBuy.tokens);
    expect(quoted).toBeGreaterThan(0n);
    // createToken carries the launch fee and the first buy with its fee.
    const create = dry.body.data.transactions.find((t: { step: string }) => t.step === "create");
    expect(BigInt(create.valueWei)).toBe(
      BigInt(dry.body.data.launchFeeWei) + BigInt(dry.body.data.firstBuy.valueWei),
    );

    // Just before the launch: one address funds three fresh wallets (the bundle), another one.
    const funder = external[2] as (typeof external)[0];
    const loneFunder = external[3] as (typeof external)[0];
    const fresh = Array.from({ length: 4 }, () => privateKeyToAccount(generatePrivateKey()));
    const fundings = new Map<string, { from: string; amount: bigint; hash: Hash }>();
    for (const [i, w] of fresh.entries()) {
      const from = i < 3 ? funder : loneFunder;
      const amount = parseEther("0.2") + BigInt(i);
      const hash = await createWalletClient({ account: from, transport: rpc() }).sendTransaction({
        chain: null,
        to: w.address,
        value: amount,
      });
      fundings.set(w.address.toLowerCase(), { from: from.address.toLowerCase(), amount, hash });
    }
    for (const f of fundings.values()) await client.waitForTransactionReceipt({ hash: f.hash });
    const before = await client.getBlockNumber();

    // The launch, and the snipers' buys the moment TokenCreate is mined.
    const launched = launch(stack.apiUrl, body, bearer(a));
    const token = await tokenCreatedBy(wallet, before);
    const buys = await Promise.all(
      fresh.map((w) =>
        createWalletClient({ account: w, transport: rpc() }).writeContract({
          chain: null,
          address: tm,
          abi: tokenManager2Abi,
          functionName: "buyTokenAMAP",
          args: [token, parseEther("0.1"), 0n],
          value: parseEther("0.1"),
        }),
      ),
    );
    const r = await launched;
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d.tokenAddress).toBe(token);
    expect(d.antiSniper).toBe(true);

    // The first buy: createToken's own TokenPurchase for the agent wallet, as the preview said.
    const receipt = await client.getTransactionReceipt({ hash: d.txHash });
    const purchases = (logs: typeof receipt.logs) =>
      parseEventLogs({ abi: tokenManager2Abi, logs, eventName: "TokenPurchase" }).filter(
        (p) => p.args.token.toLowerCase() === token,
      );
    const [own] = purchases(receipt.logs);
    expect(own?.args.account.toLowerCase()).toBe(wallet);
    expect(own?.args.amount).toBe(quoted);
    expect(d.firstBuy).toEqual({
      tokens: String(own?.args.amount),
      costWei: String(own?.args.cost),
      feeWei: String(own?.args.fee),
    });
    expect(own?.args.cost).toBe(BigInt(dry.body.data.firstBuy.costWei));
    // AntiSniperFeeMode: feeSetting on the chain; the snipers paid its extra fee, no one else.
    const created = receipt.blockNumber;
    const sniped = await Promise.all(
      buys.map((hash) => client.waitForTransactionReceipt({ hash })),
    );
    const extra = (
      await Promise.all(
        sniped.map(async (s, i) => {
          const [p] = purchases(s.logs);
          const spent =
            (await client.getBalance({
              address: (fresh[i] as (typeof fresh)[0]).address,
              blockNumber: s.blockNumber - 1n,
            })) -
            (await client.getBalance({
              address: (fresh[i] as (typeof fresh)[0]).address,
              blockNumber: s.blockNumber,
            }));
          return (
            spent - (p?.args.cost ?? 0n) - (p?.args.fee ?? 0n) - s.gasUsed * s.effectiveGasPrice
          );
        }),
      )
    ).reduce((x, y) => x + y, 0n);
    const [, , feeSetting, blockNumber, extraFee] = await ex1(token);
    expect({ feeSetting, blockNumber, extraFee }).toEqual({
      feeSetting: 1n,
      blockNumber: created,
      extraFee: extra,
    });
    expect(extra).toBeGreaterThan(0n);
    for (const s of sniped)
      expect(s.blockNumber - created).toBeLessThanOrEqual(LAUNCH_REPORT.windowBlocks);

    // The report, final once the index is past the window, against the chain's own logs.
    const report = (await until(`/tokens/${token}/launch-report`, (b) => b.data?.final === true))
      .data;
    const end = created + BigInt(LAUNCH_REPORT.windowBlocks);
    const logs = parseEventLogs({
      abi: tokenManager2Abi,
      eventName: "TokenPurchase",
      logs: await client.getLogs({ address: tm, fromBlock: created, toBlock: end }),
    }).filter((p) => p.args.token.toLowerCase() === token);
    const byAccount = new Map<string, { tokens: bigint; bnb: bigint; n: number; first: bigint }>();
    for (const p of logs) {
      const k = p.args.account.toLowerCase();
      const v = byAccount.get(k) ?? { tokens: 0n, bnb: 0n, n: 0, first: p.blockNumber };
      byAccount.set(k, {
        tokens: v.tokens + p.args.amount,
        bnb: v.bnb + p.args.cost,
        n: v.n + 1,
        first: v.first,
      });
    }
    const figures = (k: string) => {
      const v = byAccount.get(k) as { tokens: bigint; bnb: bigint; n: number; first: bigint };
      return {
        buys: v.n,
        firstBlockOffset: Number(v.first - created),
        tokenAmount: String(v.tokens),
        bnbAmount: String(v.bnb),
        shareBps: Number((v.tokens * 10_000n) / TOTAL_SUPPLY),
      };
    };
    expect(report.creatorBuy).toEqual(figures(wallet));
    expect(report.antiSniper).toBe(true);
    expect(report.windowEndBlock).toBe(String(end));
    const others = [...byAccount.keys()].filter((k) => k !== wallet);
    expect(others.sort()).toEqual(fresh.map((w) => w.address.toLowerCase()).sort());
    for (const b of report.buyers) {
      const f = fundings.get(b.account);
      expect(b).toMatchObject(figures(b.account));
      expect(b.fundedBy).toEqual([
        {
          funder: f?.from,
          amount: String(f?.amount),
          blockNumber: String(
            (await client.getTransactionReceipt({ hash: f?.hash as Hash })).blockNumber,
          ),
          txHash: f?.hash,
        },
      ]);
    }
    const bundled = fresh.slice(0, 3).map((w) => w.address.toLowerCase());
    const bundledTokens = bundled.reduce((s, k) => s + BigInt(figures(k).tokenAmount), 0n);
    expect(report.bundles).toEqual([
      {
        funder: funder.address.toLowerCase(),
        funderIsCreator: false,
        wallets: expect.arrayContaining(bundled),
        fundedWei: String(parseEther("0.6") + 3n),
        tokenAmount: String(bundledTokens),
        bnbAmount: String(bundled.reduce((s, k) => s + BigInt(figures(k).bnbAmount), 0n)),
        shareBps: Number((bundledTokens * 10_000n) / TOTAL_SUPPLY),
      },
    ]);
    expect(report.bundles[0].wallets).toHaveLength(3);
    expect(report.totals).toMatchObject({ buyers: 4, bundledWallets: 3 });

    // The agent's dashboard (API and page) shows the first buy and the report; the feed
    // announces the report (what the WebSocket agent channel and outbound webhooks carry).
    expect((await get(`/v2/agents/${token}`)).body.data.firstBuy).toEqual({
      tokenAmount: String(own?.args.amount),
      bnbAmount: String(own?.args.cost),
      fee: String(own?.args.fee),
      txHash: d.txHash,
    });
    const feed = await until(
      `/v2/agents/${token}/events?eventType=launch.report`,
      (b) => b.data.items.length === 1,
    );
    expect(feed.data.items[0]).toMatchObject({
      eventType: "launch.report",
      category: "market",
      data: { token, buyers: 4, bundles: 1, bundledWallets: 3, shareBps: report.totals.shareBps },
    });
    const page = await (await fetch(`${env.WEB_URL}/agent/${token}`)).text();
    expect(page).toContain('id="launch-report"');
    expect(page).toContain('id="first-buy"');
    expect(page).toContain(`Bundle: `);
  }, 180_000);
});
