import { type Address, createWalletClient, http, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { responseChecker } from "../../api/testing/openapi.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { runCli, type Stack, waitFor } from "../helpers/cli.ts";
import {
  bearer,
  chainClient,
  createAgentCli,
  launch,
  launchBody,
  nextIp,
  readRecord,
  stackSql,
} from "../helpers/launch.ts";
import { sharedStack } from "../helpers/shared-stack.ts";
import { WsClient } from "../ws/client.ts";

// The platform reads (stats, the trade list and ticker, the runway leaderboard) through the
// whole stack, each figure recomputed here from the indexed rows themselves (trade by trade, not
// the indexer's running totals): `/v2/stats` as of its own indexed block, `/v2/trades` walked
// page by page against the trade rows (with and without filters), the `trades` WebSocket
// channel's item equal to the REST one, the agent list's treasury, burn and runway equal to
// `/burn-rate`'s for the same valuation, and the agent detail's tax income equal to the sum of
// its wallets' `tax_income` rows.

// biome-ignore lint/suspicious/noExplicitAny: API bodies, read by the assertions
type Body = Record<string, any>;

const trader = devnetAccounts().external[4] as ReturnType<typeof devnetAccounts>["external"][0];
let stack: Stack;
let env: Record<string, string>;
let sql: ReturnType<typeof stackSql>;
let token: Address;
let agentId: string;
let key: Record<string, string>;
let check: ReturnType<typeof responseChecker>;

const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${stack.apiUrl}${path}`, {
    ...init,
    headers: { "x-forwarded-for": nextIp(), ...(init.headers as Record<string, string>) },
  });
  return { status: res.status, body: (await res.json()) as Body };
};

const wallet = () =>
  createWalletClient({
    account: trader,
    chain: {
      id: 56,
      name: "devnet",
      nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
      rpcUrls: { default: { http: [`http://127.0.0.1:${env.DEVNET_PORT}`] } },
    },
    transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`),
  });

/** A curve buy of the suite's token, mined; its transaction hash. */
async function buy(bnb: string) {
  const record = readRecord(env.LAUNCHPAD_DATA_DIR as string);
  const funds = parseEther(bnb);
  const hash = await wallet().writeContract({
    address: record.contracts.tokenManager2 as Address,
    abi: tokenManager2Abi,
    functionName: "buyTokenAMAP",
    args: [token, trader.address, funds, 0n],
    value: funds,
    gas: 600_000n,
  });
  const r = await chainClient(env).waitForTransactionReceipt({ hash });
  expect(r.status).toBe("success");
  return { hash, block: r.blockNumber };
}

/** Waits until the API's index has reached `block`. */
const indexedTo = (block: bigint) =>
  waitFor(
    `the index at block ${block}`,
    async () => {
      const r = await fetch(`${stack.apiUrl}/v2/trades?limit=1`);
      const at = r.headers.get("x-indexed-block");
      return at && BigInt(at) >= block ? true : undefined;
    },
    60_000,
  );

beforeAll(async () => {
  ({ stack, env } = await sharedStack());
  sql = stackSql(env.LAUNCHPAD_DATA_DIR as string);
  check = responseChecker((await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as never);
  const info = await runCli(["devnet", "info", "--json"], env);
  const agent = await createAgentCli(env, "Ticker Agent");
  agentId = agent.agentId;
  key = bearer(agent);
  const r = await launch(
    stack.apiUrl,
    launchBody(agent, JSON.parse(info.stdout).sampleImageUrl, {
      name: "Ticker Agent",
      ticker: "TICK",
    }),
    key,
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  token = r.body.data.tokenAddress.toLowerCase();
  await waitFor(
    "the token indexed",
    async () => ((await api(`/tokens/${token}`)).status === 200 ? true : undefined),
    120_000,
  );
  // Sizes on either side of the filter below; the treasury gets BNB so its runway is finite.
  for (const bnb of ["0.05", "0.3", "0.01"]) await buy(bnb);
  const treasury = r.body.data.treasuryAddress as Address;
  const hash = await wallet().sendTransaction({ to: treasury, value: parseEther("1.5") });
  await chainClient(env).waitForTransactionReceipt({ hash });
}, 300_000);

afterAll(async () => {
  await sql?.end();
});

describe("platform reads", () => {
  it("/v2/stats equals a recomputation from the indexed rows up to its own block", async () => {
    const { status, body } = await api("/v2/stats");
    expect(status).toBe(200);
    expect(check("/v2/stats", "get", 200, body)).toEqual([]);
    const s = body.data;
    const b = s.indexedBlock as string;
    const now = Date.parse(s.indexedAt) / 1000;
    const v = (t: string) => sql`"onchain".${sql(t)}`;
    const [agents] = await sql`select count(*)::int as n from app.agents
      where token_address is not null`;
    const tokens = await sql`select origin::text, created_block::text, graduated_block::text
      from ${v("token")}`;
    const trades = await sql`select bnb_amount::text, bnb_usd::text, block_number::text,
      timestamp::text from ${v("trade")} where block_number <= ${b}::numeric`;
    const launches = await sql`select l.total_deposited::text,
        exists (select 1 from ${v("launch_event")} e where e.vault = l.vault
          and e.kind = 'launch_executed' and e.block_number <= ${b}::numeric) as done
      from ${v("launch")} l where l.created_block <= ${b}::numeric`;
    const le = (x: string | null) => x !== null && BigInt(x) <= BigInt(b);
    const usd = (t: Record<string, string | null>) =>
      t.bnb_usd === null
        ? 0n
        : (BigInt(t.bnb_amount as string) * BigInt(t.bnb_usd as string)) / 10n ** 18n;
    const day = trades.filter(
      (t) => Number(t.timestamp) > now - 86_400 && Number(t.timestamp) <= now,
    );
    const sum = (xs: bigint[]) => xs.reduce((a, x) => a + x, 0n);
    const usdText = (n: bigint) => {
      const f = (n % 10n ** 18n).toString().padStart(18, "0").replace(/0+$/, "");
      return `${n / 10n ** 18n}${f ? `.${f}` : ""}`;
    };
    expect(s).toEqual({
      agents: agents?.n,
      tokens: {
        launched: tokens.filter((t) => le(t.created_block)).length,
        graduated: tokens.filter((t) => t.origin === "registry" && le(t.graduated_block)).length,
      },
      depositLaunches: {
        total: launches.length,
        launched: launches.filter((l) => l.done).length,
        raisedBnb: sum(
          launches.filter((l) => l.done).map((l) => BigInt(l.total_deposited)),
        ).toString(),
      },
      volume: {
        bnb24h: sum(day.map((t) => BigInt(t.bnb_amount))).toString(),
        usd24h: usdText(sum(day.map(usd))),
        bnbTotal: sum(trades.map((t) => BigInt(t.bnb_amount))).toString(),
        usdTotal: usdText(sum(trades.map(usd))),
      },
      indexedBlock: b,
      indexedAt: s.indexedAt,
    });
    // Not a vacuous equality: this suite's own trades are in it (0.36 BNB paid, the curve's fee
    // taken out of each before its gross amount).
    expect(BigInt(s.volume.bnb24h)).toBeGreaterThanOrEqual(parseEther("0.35"));
    expect(s.tokens.launched).toBeGreaterThan(0);
  });

  it.each([
    ["", () => true],
    [
      "&side=buy&minBnbAmount=40000000000000000",
      (t: Body) => t.side === "buy" && BigInt(t.bnb_amount) >= 40_000_000_000_000_000n,
    ],
    ["&side=sell", (t: Body) => t.side === "sell"],
  ] as const)(
    "/v2/trades?%s walked to the end equals the trade rows, newest first",
    async (q, keep) => {
      const items: Body[] = [];
      let cursor: string | null = null;
      do {
        const page = await api(`/v2/trades?limit=37${q}${cursor ? `&cursor=${cursor}` : ""}`);
        expect(page.status).toBe(200);
        items.push(...page.body.data.items);
        cursor = page.body.data.nextCursor;
      } while (cursor);
      const first = items[0];
      const rows = (
        await sql`select * from "onchain".trade order by block_number desc, log_index desc`
      ).filter(
        (r) =>
          first &&
          (BigInt(r.block_number) < BigInt(first.blockNumber) ||
            (BigInt(r.block_number) === BigInt(first.blockNumber) &&
              Number(r.log_index) <= first.logIndex)) &&
          keep(r),
      );
      expect(
        items.map((t) => `${t.txHash}:${t.logIndex}:${t.token}:${t.bnbAmount}:${t.side}`),
      ).toEqual(
        rows.map((r) => `${r.tx_hash}:${r.log_index}:${r.token}:${r.bnb_amount}:${r.side}`),
      );
      if (q === "") expect(items.some((t) => t.token === token)).toBe(true);
    },
  );

  it("the trades channel carries a new trade exactly as /v2/trades lists it", async () => {
    const ws = await WsClient.open(`${stack.apiUrl.replace("http", "ws")}/ws`);
    try {
      const sub = await ws.request({ type: "subscribe", channel: "trades" });
      expect(sub).toMatchObject({ type: "subscribed", channel: "trades" });
      const { hash, block } = await buy("0.02");
      const m = await ws.waitFor(
        (x) => x.type === "trade" && x.data.txHash === hash,
        "the buy on the trades channel",
        60_000,
      );
      await indexedTo(block);
      const listed = await api("/v2/trades?limit=20");
      expect(m.data).toEqual(listed.body.data.items.find((t: Body) => t.txHash === hash));
      expect(m.data).toMatchObject({ token, side: "buy" });
      // Gross BNB: what was paid less the curve's fee.
      expect(BigInt(m.data.bnbAmount)).toBeGreaterThan(parseEther("0.019"));
      const bad = await ws.request({ type: "subscribe", channel: "trades", id: token });
      expect(bad).toMatchObject({ type: "error", data: { code: "unknown_id" } });
    } finally {
      ws.ws.close();
    }
  });

  it("the agent list's treasury, burn and runway equal /burn-rate's for the same valuation", async () => {
    const put = await api(`/v2/agents/${token}/burn-config`, {
      method: "PUT",
      headers: { ...key, "content-type": "application/json" },
      body: JSON.stringify({ items: [{ provider: "gpu", kind: "compute", monthlyUsd: "45.5" }] }),
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const head = await chainClient(env).getBlockNumber();
    const listed = (await waitFor(
      "the NAV job's runway figures",
      async () => {
        const r = await api("/v2/agents?sort=treasuryUsd&limit=100");
        const a = r.body.data.items.find((i: Body) => i.agentId === agentId);
        return a?.runwayAsOf && BigInt(a.runwayAsOf.block) >= head && a.monthlyBurnUsd === "45.5"
          ? a
          : undefined;
      },
      150_000,
    )) as Body;
    const list = await api("/v2/agents?sort=runwayDays&order=asc");
    expect(check("/v2/agents", "get", 200, list.body)).toEqual([]);
    const burn = await api(`/v2/agents/${token}/burn-rate`);
    expect(burn.status).toBe(200);
    expect({
      treasuryUsd: listed.treasuryUsd,
      monthlyBurnUsd: listed.monthlyBurnUsd,
      runwayDays: listed.runwayDays,
    }).toEqual({
      treasuryUsd: burn.body.data.treasuryUsd,
      monthlyBurnUsd: burn.body.data.monthlyUsd,
      runwayDays: burn.body.data.runwayDays,
    });
    expect(Number(listed.treasuryUsd)).toBeGreaterThan(0);
    expect(listed.ageSeconds).toBeGreaterThanOrEqual(0);
  });

  it("every agent's tax income equals the sum of its wallets' tax_income rows", async () => {
    const agents = await sql<
      { token_address: string; treasury_address: string | null; wallet_address: string | null }[]
    >`
      select token_address, treasury_address, wallet_address from app.agents
      where token_address is not null`;
    let withIncome = 0;
    for (const a of agents) {
      const { status, body } = await api(`/v2/agents/${a.token_address}`);
      expect(status).toBe(200);
      expect(check("/v2/agents/{agent}", "get", 200, body)).toEqual([]);
      const t = body.data.taxIncome;
      const wallets = [a.treasury_address, a.wallet_address].filter((w) => w !== null);
      if (wallets.length === 0) continue;
      const rows = await sql`select amount::text, timestamp::text from "onchain".wallet_activity
        where kind = 'tax_income' and wallet in ${sql(wallets)}
          and block_number <= ${t.indexedBlock}::numeric`;
      const now = Date.parse(t.indexedAt) / 1000;
      const sum = (xs: Body[]) => xs.reduce((s, r) => s + BigInt(r.amount), 0n).toString();
      expect(t).toEqual({
        lifetimeBnb: sum(rows),
        last24hBnb: sum(rows.filter((r) => Number(r.timestamp) > now - 86_400)),
        count: rows.length,
        indexedBlock: t.indexedBlock,
        indexedAt: t.indexedAt,
      });
      if (rows.length > 0) withIncome++;
    }
    console.log(`tax income: ${withIncome} of ${agents.length} agents have income rows`);
  });

  it("bad input is 400 validation_failed in the error envelope", async () => {
    for (const q of [
      "/v2/trades?side=both",
      "/v2/trades?minBnbAmount=-1",
      "/v2/trades?minBnbAmount=0.5",
      "/v2/trades?minBnbAmount=abc",
      "/v2/trades?cursor=not-a-cursor!",
      "/v2/trades?cursor=Zm9v",
      "/v2/agents?sort=hype",
      "/v2/agents?order=sideways",
    ]) {
      const r = await api(q);
      expect(r.status, q).toBe(400);
      expect(r.body, q).toMatchObject({ ok: false, error: "validation_failed" });
      expect(r.body.details?.length, q).toBeGreaterThan(0);
      expect(check(q.split("?")[0] as string, "get", 400, r.body), q).toEqual([]);
    }
  });
});
