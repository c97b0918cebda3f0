import { createServer } from "node:http";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hash,
  http,
  parseEther,
} from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bnbUsdFeedAbi } from "../../abis/BnbUsdFeed.ts";
import { taxTokenAbi } from "../../abis/TaxToken.ts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { responseChecker } from "../../api/testing/openapi.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { createChainReader } from "../../lib/agents/chain-reader.ts";
import { takeNavSnapshots } from "../../lib/agents/nav.ts";
import { freePort } from "../../lib/local/net.ts";
import { signWebhookBody } from "../../lib/webhooks/inbound/signature.ts";
import { isolatedEnv, runCli, type Stack, startStack, waitFor } from "../helpers/cli.ts";
import {
  ADMIN_TOKEN,
  type Agent,
  bearer,
  createAgentCli,
  launch,
  launchBody,
  launchEnv,
  nextIp,
  readRecord,
  rolePid,
  stackSql,
} from "../helpers/launch.ts";

// The dashboard on a fresh `launchpad start`: two launched agents, a buy of A's token into its
// treasury and a BNB transfer to it, checked against the chain's own answers (getBalance,
// balanceOf, the token's curve price, the feed's round) with independent integer arithmetic.

// Each step waits for the index (and the NAV test for the worker's cron): room on a busy machine.
vi.setConfig({ testTimeout: 240_000 });

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked by assertions and the OpenAPI schema
type Body = Record<string, any>;
type Launched = Agent & { token: Address; wallet: Address; treasury: Address; nft: string };

let stack: Stack;
let env: Record<string, string>;
let sql: ReturnType<typeof stackSql>;
let check: ReturnType<typeof responseChecker>;
let rpc: string;
let A: Launched;
let B: Launched;
const FEED_ANSWER = 612_34567891n; // 612.34567891 USD per BNB, 8 decimals

const accounts = devnetAccounts();
const trader = accounts.external[0] as (typeof accounts.external)[number];

function clients() {
  const chain = defineChain({
    id: 56,
    name: "devnet",
    nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
    rpcUrls: { default: { http: [rpc] } },
  });
  const transport = http(rpc);
  return {
    pub: createPublicClient({ chain, transport }),
    test: createTestClient({ chain, mode: "anvil", transport }),
    wallet: (account: typeof trader) => createWalletClient({ account, chain, transport }),
  };
}

async function api(
  method: string,
  template: string,
  path: string,
  o: { key?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = { "x-forwarded-for": nextIp() };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const body = (await res.json()) as Body;
  expect(check(template, method.toLowerCase(), res.status, body), `${method} ${path}`).toEqual([]);
  return { status: res.status, body };
}

/** A decimal string as an integer at `places` decimals (exactly; fails on more digits). */
function scaled(text: string, places: number): bigint {
  const [int, frac = ""] = text.split(".");
  expect(frac.length).toBeLessThanOrEqual(places);
  return BigInt(`${int}${frac.padEnd(places, "0")}`);
}

/** What the chain says a wallet is worth at `block`, in USD at 10^-44 (wei × wei price × feed). */
async function chainValue(wallet: Address, token: Address, block: bigint) {
  const { pub } = clients();
  const record = readRecord(env.LAUNCHPAD_DATA_DIR as string);
  const [bnb, held, info, round] = await Promise.all([
    pub.getBalance({ address: wallet, blockNumber: block }),
    pub.readContract({
      address: token,
      abi: taxTokenAbi,
      functionName: "balanceOf",
      args: [wallet],
      blockNumber: block,
    }),
    pub.readContract({
      address: record.contracts.tokenManager2 as Address,
      abi: tokenManager2Abi,
      functionName: "_tokenInfos",
      args: [token],
      blockNumber: block,
    }),
    pub.readContract({
      address: record.contracts.bnbUsdFeed as Address,
      abi: bnbUsdFeedAbi,
      functionName: "latestRoundData",
      blockNumber: block,
    }),
  ]);
  const lastPrice = (info as readonly bigint[])[9] as bigint;
  const answer = (round as readonly bigint[])[1] as bigint;
  const usd44 = bnb * answer * 10n ** 18n + (held as bigint) * lastPrice * answer;
  return { bnb, held: held as bigint, lastPrice, answer, usd44 };
}

async function mined(hash: Hash) {
  const r = await clients().pub.waitForTransactionReceipt({ hash });
  expect(r.status).toBe("success");
  return r.blockNumber;
}

/** Holdings once the index has reached `block`. */
function holdingsAt(a: Launched, block: bigint) {
  return waitFor(
    `holdings at block ${block}`,
    async () => {
      const h = await api("GET", "/v2/agents/{agent}/holdings", `/v2/agents/${a.token}/holdings`);
      return h.status === 200 && BigInt(h.body.data.asOf.block) >= block ? h.body.data : undefined;
    },
    120_000,
  );
}

async function launchAgent(name: string, ticker: string): Promise<Launched> {
  const info = await runCli(["devnet", "info", "--json"], env);
  const sample = JSON.parse(info.stdout).sampleImageUrl;
  const agent = await createAgentCli(env, name);
  const r = await launch(stack.apiUrl, launchBody(agent, sample, { name, ticker }), bearer(agent));
  expect(r.status).toBe(200);
  const d = r.body.data;
  return {
    ...agent,
    token: d.tokenAddress,
    wallet: d.walletAddress,
    treasury: d.treasuryAddress,
    nft: d.eip8004TokenId,
  };
}

beforeAll(async () => {
  env = launchEnv(await isolatedEnv(), {
    // The NAV test recomputes a point at the block it was taken at, after a wait that outlasted
    // the devnet's 64 kept states on CI's loaded machine (a 1 s chain); pruning itself is tested
    // through the proxy below.
    LAUNCHPAD_TEST_ANVIL_HISTORY: "1024",
  });
  stack = await startStack(env);
  rpc = `http://127.0.0.1:${env.DEVNET_PORT}`;
  sql = stackSql(env.LAUNCHPAD_DATA_DIR as string);
  check = responseChecker((await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as never);
  A = await launchAgent("Dash Agent", "DASH");
  B = await launchAgent("Other Agent", "OTHR");
  // A price with every decimal used, as a Chainlink round would push it.
  const record = readRecord(env.LAUNCHPAD_DATA_DIR as string);
  await mined(
    await clients()
      .wallet(accounts.feedUpdater)
      .writeContract({
        address: record.contracts.bnbUsdFeed as Address,
        abi: bnbUsdFeedAbi,
        functionName: "updateAnswer",
        args: [FEED_ANSWER],
      }),
  );
}, 400_000);

afterAll(async () => {
  await sql?.end({ timeout: 2 });
  await stack?.cleanup();
});

function expectMatchesChain(h: Body, c: Awaited<ReturnType<typeof chainValue>>, token: Address) {
  const safe = h.sources.agentSafe;
  const bnb = safe.assets.find((x: Body) => x.asset === "BNB");
  expect(BigInt(bnb.amount)).toBe(c.bnb);
  expect(scaled(bnb.priceUsd, 8)).toBe(c.answer);
  expect(scaled(bnb.valueUsd, 26)).toBe(c.bnb * c.answer);
  const own = safe.assets.find((x: Body) => x.token === token);
  if (c.held === 0n) expect(own).toBeUndefined();
  else {
    expect(BigInt(own.amount)).toBe(c.held);
    expect(scaled(own.priceUsd, 26)).toBe(c.lastPrice * c.answer);
    expect(scaled(own.valueUsd, 44)).toBe(c.held * c.lastPrice * c.answer);
  }
  expect(scaled(safe.totalUsd, 44)).toBe(c.usd44);
}

describe("holdings", () => {
  it("value the treasury exactly as the chain and the feed say, and move exactly with a buy and a transfer", async () => {
    const { pub, wallet } = clients();
    const record = readRecord(env.LAUNCHPAD_DATA_DIR as string);
    const feedBlock = await pub.getBlockNumber();
    const before = await holdingsAt(A, feedBlock);
    expect(before.bnbUsd.price).toBe("612.34567891");
    expectMatchesChain(
      before,
      await chainValue(A.treasury, A.token, BigInt(before.asOf.block)),
      A.token,
    );
    expect(before.sources.hyperliquid).toMatchObject({
      status: "not_connected",
      totalUsd: "0",
      assets: [],
    });

    // A buy of A's token delivered to the treasury, then 1.5 BNB sent to it.
    const funds = parseEther("0.3");
    const buyBlock = await mined(
      await wallet(trader).writeContract({
        address: record.contracts.tokenManager2 as Address,
        abi: tokenManager2Abi,
        functionName: "buyTokenAMAP",
        args: [A.token, A.treasury, funds, 0n],
        value: funds,
        gas: 600_000n,
      }),
    );
    const sendBlock = await mined(
      await wallet(trader).sendTransaction({ to: A.treasury, value: parseEther("1.5") }),
    );
    expect(sendBlock).toBeGreaterThanOrEqual(buyBlock);
    const after = await holdingsAt(A, sendBlock);
    const c = await chainValue(A.treasury, A.token, BigInt(after.asOf.block));
    expectMatchesChain(after, c, A.token);
    const bnbOf = (h: Body) =>
      BigInt(h.sources.agentSafe.assets.find((x: Body) => x.asset === "BNB").amount);
    expect(bnbOf(after) - bnbOf(before)).toBe(parseEther("1.5"));
    expect(c.held).toBeGreaterThan(0n);
    // The hot wallet is valued too, and the aggregate is the sum of the sources.
    const hot = await chainValue(A.wallet, A.token, BigInt(after.asOf.block));
    expect(scaled(after.sources.hot.totalUsd, 44)).toBe(hot.usd44);
    expect(scaled(after.totalUsd, 44)).toBe(c.usd44 + hot.usd44);
    expect(after.sources.aggregated.totalUsd).toBe(after.totalUsd);
  });
});

describe("writes and the agent page", () => {
  it("every write is refused for another agent's key; the owner's writes show on the page", async () => {
    const path = `/v2/agents/${A.token}`;
    const writes: [string, string, string, unknown][] = [
      ["PUT", "/persona", "/v2/agents/{agent}/persona", { name: "Stolen" }],
      ["POST", "/apps", "/v2/agents/{agent}/apps", { name: "x", url: "https://x.example" }],
      ["PUT", "/burn-config", "/v2/agents/{agent}/burn-config", { items: [] }],
      [
        "POST",
        "/wallets",
        "/v2/agents/{agent}/wallets",
        { chain: "bsc", address: B.wallet, role: "other" },
      ],
    ];
    for (const [method, sub, template, body] of writes) {
      const r = await api(method, template, `${path}${sub}`, { key: B.apiKey, body });
      expect(r).toMatchObject({ status: 403, body: { error: "not_authorized" } });
    }
    const [events] = await sql`select count(*)::int as n from app.agent_events
      where agent_id = ${A.agentId} and source = 'dashboard-api'`;
    expect(events?.n).toBe(0);

    await api("PUT", "/v2/agents/{agent}/persona", `${path}/persona`, {
      key: A.apiKey,
      body: { name: "Dash", handle: "dash", bio: "I trade and write." },
    });
    const perps = "0x00000000000000000000000000000000000a11ce";
    await api("POST", "/v2/agents/{agent}/wallets", `${path}/wallets`, {
      key: A.apiKey,
      body: { chain: "hyperliquid", address: perps, role: "perps" },
    });
    const d = await api("GET", "/v2/agents/{agent}", path);
    expect(d.status).toBe(200);
    expect(d.body.data).toMatchObject({
      persona: { name: "Dash", handle: "dash" },
      identity: { eip8004TokenId: A.nft, owner: A.wallet, treasury: A.treasury },
      policyStatus: "active",
      policy: { policyId: expect.any(String), version: expect.any(Number) },
    });
    expect(d.body.data.wallets.map((w: Body) => [w.role, w.chain, w.address])).toEqual([
      ["agent", "bsc", A.wallet],
      ["treasury", "bsc", A.treasury],
      ["perps", "hyperliquid", perps],
    ]);
    const h = await api("GET", "/v2/agents/{agent}/holdings", `${path}/holdings`);
    // The perps poller reads the registered account from the venue stand-in (empty: $0); before
    // its first poll the source says it is unavailable. docs/pollers.md; tested in test/pollers.
    expect(h.body.data.sources.hyperliquid).toMatchObject({ address: perps, totalUsd: "0" });
    expect(["ok", "unavailable"]).toContain(h.body.data.sources.hyperliquid.status);
    const w = await api("GET", "/v2/agents/{agent}/wallets", `${path}/wallets`);
    const [agentW, treasuryW, perpsW] = w.body.data.items;
    const block = BigInt(w.body.data.asOf.block);
    expect(BigInt(treasuryW.balances.assets[0].amount)).toBe(
      await clients().pub.getBalance({ address: A.treasury, blockNumber: block }),
    );
    expect(agentW.balances.status).toBe("ok");
    expect(perpsW.balances).toBeNull();
  });

  it("featuring a second agent leaves exactly one featured, by CLI then admin API", async () => {
    const cli = await runCli(["agents", "feature", A.token], env);
    expect(cli.code).toBe(0);
    expect(
      (await api("GET", "/v2/agents", "/v2/agents?featured=true")).body.data.items.map(
        (x: Body) => x.tokenAddress,
      ),
    ).toEqual([A.token]);
    const res = await fetch(`${stack.apiUrl}/v2/admin/agents/${B.token}/feature`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "x-forwarded-for": nextIp() },
    });
    expect(res.status).toBe(200);
    const list = await api("GET", "/v2/agents", "/v2/agents?featured=true");
    expect(list.body.data.items.map((x: Body) => x.tokenAddress)).toEqual([B.token]);
    const a = await api("GET", "/v2/agents/{agent}", `/v2/agents/${A.token}`);
    expect(a.body.data).toMatchObject({ featured: false, featuredCount: 1 });
    const [featured] = await sql`select count(*)::int as n from app.agents where featured`;
    expect(featured?.n).toBe(1);
  });
});

describe("burn rate and runway", () => {
  it("follow a configured burn and signed inference.spent webhooks", async () => {
    const path = `/v2/agents/${A.token}`;
    await api("PUT", "/v2/agents/{agent}/burn-config", `${path}/burn-config`, {
      key: A.apiKey,
      body: {
        items: [
          { provider: "gpu-cloud", kind: "compute", monthlyUsd: "120.5" },
          { provider: "openai", kind: "inference", usageBased: true },
        ],
      },
    });
    const fixedOnly = await api("GET", "/v2/agents/{agent}/burn-rate", `${path}/burn-rate`);
    expect(fixedOnly.body.data.monthlyUsd).toBe("120.5");
    // Three deliveries in three minutes through the signed cloud webhook, one of them twice:
    // the consumer rolls them up per agent-minute and a redelivery never counts twice.
    const { webhookSecrets } = JSON.parse((await runCli(["devnet", "info", "--json"], env)).stdout);
    const minute = (m: number) => new Date(Math.floor(Date.now() / 60_000) * 60_000 - m * 60_000);
    const deliveries = ["0.42", "1.337", "0.000001"].map((usd, i) =>
      JSON.stringify({
        sourceEventId: `spend-${A.agentId}-${i}`,
        eventType: "inference.spent",
        occurredAt: minute(i + 1).toISOString(),
        agentId: A.token,
        data: { provider: "openai", model: "gpt", usd, tokensIn: 100, tokensOut: 20 },
      }),
    );
    for (const body of [...deliveries, deliveries[1] as string]) {
      const res = await fetch(`${stack.apiUrl}/v2/webhooks/cloud/inference`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-forwarded-for": nextIp(),
          "x-webhook-signature": signWebhookBody({ secrets: [webhookSecrets.cloud], body }),
        },
        body,
      });
      expect(res.status).toBe(200);
    }
    const b = await waitFor(
      "the consumer's inference.spent roll-ups",
      async () => {
        const r = await api("GET", "/v2/agents/{agent}/burn-rate", `${path}/burn-rate`);
        const usage = r.body.data.items.find((i: Body) => i.provider === "openai");
        return usage?.usageEvents === 3 ? r.body.data : undefined;
      },
      60_000,
    );
    expect(b.items.find((i: Body) => i.provider === "openai")).toMatchObject({
      monthlyUsd: "1.757001",
      usageEvents: 3,
    });
    expect(b.monthlyUsd).toBe("122.257001");
    // Treasury: the treasury Safe's holdings at the block the answer names, from the chain;
    // everything the agent holds is reported beside it.
    const block = BigInt(b.treasuryAsOf.block);
    const safe = (await chainValue(A.treasury, A.token, block)).usd44;
    const all = safe + (await chainValue(A.wallet, A.token, block)).usd44;
    expect(scaled(b.treasuryUsd, 44)).toBe(safe);
    expect(scaled(b.holdingsUsd, 44)).toBe(all);
    // runway = treasury Safe × 30 / monthly, rounded down to 2 places.
    const expected = (safe * 30n * 100n * 10n ** 6n) / (122_257001n * 10n ** 44n);
    expect(scaled(b.runwayDays, 2)).toBe(expected);
  });
});

describe("NAV history", () => {
  it("the job's snapshots value the agent as the chain does; a run after hours down backfills, and NAV moves exactly with a transfer", async () => {
    const path = `/v2/agents/${A.token}`;
    // The worker of `launchpad start` takes the current hour's point by itself.
    const first = await waitFor(
      "the worker's NAV point",
      async () => {
        const r = await api(
          "GET",
          "/v2/agents/{agent}/nav-history",
          `${path}/nav-history?interval=1h&range=7d`,
        );
        return r.body.data.points.find((p: Body) => p.status === "ok");
      },
      120_000,
    );
    const atFirst = await chainValue(A.treasury, A.token, BigInt(first.block));
    const hotFirst = await chainValue(A.wallet, A.token, BigInt(first.block));
    expect(scaled(first.navUsd, 44)).toBe(atFirst.usd44 + hotFirst.usd44);
    expect(scaled(first.breakdown.agentSafe, 44)).toBe(atFirst.usd44);

    // The worker crashes (SIGKILL) while the chain moves on by two hours; 0.25 BNB reaches
    // the treasury in a block after the gap (the devnet keeps mining one block a second: its
    // own loop, not anvil's interval mining, which a test must not switch on beside it).
    const { test, pub, wallet } = clients();
    const crashed = rolePid(stack, "worker");
    process.kill(crashed, "SIGKILL");
    await test.increaseTime({ seconds: 2 * 3600 });
    const hash = await wallet(trader).sendTransaction({
      to: A.treasury,
      value: parseEther("0.25"),
    });
    const sent = await mined(hash);
    const jumped = await pub.getBlock({ blockNumber: sent });
    const later = new Date(Number(jumped.timestamp) * 1000);
    const laterHour = Math.floor(later.getTime() / 3_600_000) * 3_600_000;

    // The supervisor restarts the worker; its job backfills the gap and takes the new hour.
    await waitFor(
      "the restarted worker's point after the gap",
      async () => {
        const r = await api(
          "GET",
          "/v2/agents/{agent}/nav-history",
          `${path}/nav-history?range=all`,
        );
        return r.body.data.points.some((p: Body) => Date.parse(p.t) === laterHour)
          ? true
          : undefined;
      },
      180_000,
    );
    expect(rolePid(stack, "worker")).not.toBe(crashed);
    // A second run (as after another crash) adds nothing.
    const again = await takeNavSnapshots({
      sql: sql as never,
      schema: "onchain",
      chain: createChainReader(rpc),
    });
    expect(again).toEqual({ taken: 0, backfilled: 0, missing: 0 });

    const points = (
      await api(
        "GET",
        "/v2/agents/{agent}/nav-history",
        `${path}/nav-history?interval=1h&range=all`,
      )
    ).body.data.points as Body[];
    const hours = points.map((p) => Date.parse(p.t));
    for (let i = 1; i < hours.length; i++)
      expect((hours[i] as number) - (hours[i - 1] as number)).toBe(3_600_000);
    const gap = points.filter(
      (p) => Date.parse(p.t) > Date.parse(first.t) && Date.parse(p.t) < laterHour,
    );
    expect(gap.length).toBeGreaterThanOrEqual(1);
    for (const p of gap) {
      // Backfilled at the last block before its hour: the chain's state before the jump.
      expect(p.status).toBe("ok");
      const at = await pub.getBlock({ blockNumber: BigInt(p.block) });
      const next = await pub.getBlock({ blockNumber: BigInt(p.block) + 1n });
      expect(Number(at.timestamp) * 1000).toBeLessThanOrEqual(Date.parse(p.t));
      expect(Number(next.timestamp) * 1000).toBeGreaterThan(Date.parse(p.t));
      const v = await chainValue(A.treasury, A.token, BigInt(p.block));
      const h = await chainValue(A.wallet, A.token, BigInt(p.block));
      expect(scaled(p.navUsd, 44)).toBe(v.usd44 + h.usd44);
    }
    const last = points.at(-1) as Body;
    const prev = gap.at(-1) as Body;
    expect(Date.parse(last.t)).toBe(laterHour);
    expect(BigInt(last.block)).toBeGreaterThanOrEqual(sent);
    // Nothing else moved (no trade, no new feed round): NAV rose by exactly 0.25 BNB in USD.
    expect(scaled(last.navUsd, 44) - scaled(prev.navUsd, 44)).toBe(
      parseEther("0.25") * FEED_ANSWER * 10n ** 18n,
    );

    const daily = (
      await api(
        "GET",
        "/v2/agents/{agent}/nav-history",
        `${path}/nav-history?interval=1d&range=all`,
      )
    ).body.data.points as Body[];
    expect(daily.at(-1)?.navUsd).toBe(last.navUsd);
    expect(new Set(daily.map((p) => p.t)).size).toBe(daily.length);
  });
});

describe("NAV history on a pruned node", () => {
  it("marks the hours whose state the node no longer has as missing, and still takes the current one", async () => {
    const { test, pub } = clients();
    // A JSON-RPC node that pruned every state below `cutoff` (set once the chain moved on).
    let cutoff = 0n;
    let worker: number | undefined;
    const pruned = createServer(async (req, res) => {
      let text = "";
      for await (const chunk of req) text += chunk;
      const call = JSON.parse(text) as { id: number; method: string; params: unknown[] };
      const block = call.params?.[1];
      if (call.method === "eth_getBalance" && typeof block === "string" && BigInt(block) < cutoff) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: call.id,
            error: { code: -32000, message: "missing trie node" },
          }),
        );
        return;
      }
      const up = await fetch(rpc, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: text,
      });
      res.writeHead(up.status, { "content-type": "application/json" });
      res.end(await up.text());
    });
    const port = await freePort();
    await new Promise<void>((r) => pruned.listen(port, "127.0.0.1", r));
    try {
      // The stack's own worker is paused (SIGSTOP) so this run is the one that meets the gap.
      const paused = rolePid(stack, "worker");
      worker = paused;
      process.kill(paused, "SIGSTOP");
      await test.increaseTime({ seconds: 2 * 3600 });
      await test.mine({ blocks: 1 });
      const jumped = await pub.getBlock();
      cutoff = jumped.number;
      await holdingsAt(A, jumped.number);
      const chain = createChainReader(`http://127.0.0.1:${port}`);
      const r = await takeNavSnapshots({ sql: sql as never, schema: "onchain", chain });
      expect(r.missing).toBeGreaterThanOrEqual(2);
      expect(r.taken).toBe(2);
      const points = (
        await api(
          "GET",
          "/v2/agents/{agent}/nav-history",
          `/v2/agents/${A.token}/nav-history?range=all`,
        )
      ).body.data.points as Body[];
      const last = points.at(-1) as Body;
      expect(last.status).toBe("ok");
      const missing = points.filter((p) => p.status === "missing");
      expect(missing.length).toBeGreaterThanOrEqual(1);
      for (const p of missing) {
        expect(p).toMatchObject({ navUsd: null, breakdown: null, block: null });
        expect(p.reason).toContain("missing trie node");
      }
    } finally {
      if (worker) process.kill(worker, "SIGCONT");
      pruned.close();
    }
  });
});
