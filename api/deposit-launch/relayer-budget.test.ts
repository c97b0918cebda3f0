import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, formatEther, type Hex, type LocalAccount, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { samplePng } from "../../devnet/stand-ins/four-meme/sample-image.ts";
import { loadConfig } from "../../lib/config.ts";
import { createSql, type Sql } from "../../lib/db/client.ts";
import { gasLimitFor } from "../../lib/relayer/send.ts";
import { type RelayerBudget, relayerSpentToday } from "../../lib/relayer/spend.ts";
import { serveWorld, type WorldServer } from "../../test/helpers/world/serve.ts";
import { type TestApp, testApp } from "../testing/app.ts";
import {
  callAs,
  type DepositWorld,
  siweCookie,
  startDepositWorld,
} from "../testing/deposit-world.ts";

// what: The relayer's budget over a real anvil and Postgres, whichever API process a request lands on: 50 fresh wallets signed in from one address get 10 relayer-paid launches and 40 429s that leave nothing; an IPv6 /64 is one client; a launch that sent nothing counts nothing; the day's budget, its Retry-After and its metrics

let w: DepositWorld;
/** The launch image, at a public name of the world (npm test): no trusted origin. */
let images: WorldServer;
/** Requests the image host answered: a launch past the budget must cost none. */
let imageFetches = 0;
let relayer: LocalAccount;
let second: Sql;

// The defaults an operator gets (RELAYER_LAUNCHES_PER_CLIENT_PER_HOUR, RELAYER_BUDGET_BNB_PER_DAY).
const defaults = loadConfig({}, join(tmpdir(), "no-dotenv-here"));
const BUDGET: RelayerBudget = {
  perClientPerHour: defaults.RELAYER_LAUNCHES_PER_CLIENT_PER_HOUR,
  perDayWei: parseEther(defaults.RELAYER_BUDGET_BNB_PER_DAY),
};
const fresh = () => privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  images = await serveWorld("images.example.net", (_req, res) => {
    imageFetches++;
    res.writeHead(200, { "content-type": "image/png" }).end(samplePng());
  });
  w = await startDepositWorld(`${images.origin}/launch.png`);
  relayer = (await w.chain.fundedAccount("100")) as LocalAccount;
  second = createSql(w.db.url, { appName: "launchpad-api-test-2" });
}, 180_000);

afterAll(async () => {
  await second?.end({ timeout: 1 });
  await w?.stop();
  await images?.close();
});

/**
 * An API over the world's database (`sql`: another pool is another API process as far as the
 * budget goes). The per-IP request limit is off: it slows sign-ins to 30 wallets a minute, and
 * the relayer's budget must hold without it (an attacker just waits).
 */
const api = (budget: RelayerBudget, o: { relayer?: LocalAccount; sql?: Sql } = {}) =>
  testApp({ ...w.db, sql: o.sql ?? w.db.sql }, { rateLimit: { unauthenticated: 0 } }, "test", {
    sessions: { deposit: w.deposit({ relayer: o.relayer ?? relayer, budget, sql: o.sql }) },
  });

const relayerState = async (account = relayer) => {
  const c = w.chain.publicClient;
  const [mined, pending, balance] = await Promise.all([
    c.getTransactionCount({ address: account.address, blockTag: "latest" }),
    c.getTransactionCount({ address: account.address, blockTag: "pending" }),
    c.getBalance({ address: account.address }),
  ]);
  return { mined, pending, balance };
};
const launchCount = () =>
  w.chain.publicClient.readContract({
    address: w.chain.record.contracts.launchFactory as Address,
    abi: launchFactoryAbi,
    functionName: "launchCount",
  });
const rows = async (table: "deposit_launch_requests" | "relayer_spend") =>
  Number((await w.db.sql.unsafe(`select count(*)::int as n from app.${table}`))[0]?.n);
const gasPaid = async (hashes: Hex[]) => {
  let wei = 0n;
  for (const hash of hashes) {
    const r = await w.chain.publicClient.getTransactionReceipt({ hash });
    wei += r.gasUsed * r.effectiveGasPrice;
  }
  return wei;
};

async function launch(t: TestApp, ip: string, account: LocalAccount) {
  const cookie = await siweCookie(t.app, account, ip);
  const r = await callAs(t.app, ip, "POST", "/v2/launches", { cookie, body: await w.body() });
  expect(t.check("/v2/launches", r.status, r.body, "post"), JSON.stringify(r.body)).toEqual([]);
  return r;
}

function expectOverBudget(r: Awaited<ReturnType<typeof launch>>, seconds: [number, number]) {
  expect(r.status, JSON.stringify(r.body)).toBe(429);
  expect(r.body.error).toBe("rate_limited");
  expect(r.body.message).toContain("POST /v2/launches/transaction");
  const after = Number(r.res.headers.get("retry-after"));
  expect(after).toBeGreaterThanOrEqual(seconds[0]);
  expect(after).toBeLessThanOrEqual(seconds[1]);
}

describe("the relayer's budget per client", () => {
  it("50 fresh wallets from one address, over two API processes: with the defaults the relayer pays for 10, the rest are 429 and leave nothing", async () => {
    const [a, b] = await Promise.all([api(BUDGET), api(BUDGET, { sql: second })]);
    const ip = "203.0.113.7";
    const wallets = Array.from({ length: 50 }, fresh);
    const cookies: string[] = [];
    for (const [i, wallet] of wallets.entries())
      cookies.push(await siweCookie((i % 2 ? a : b).app, wallet, ip));
    const before = { ...(await relayerState()), launches: await launchCount() };
    const requests = await rows("deposit_launch_requests");
    const fetchesBefore = imageFetches;

    const answers = await Promise.all(
      wallets.map(async (_, i) => {
        const t = i % 2 ? b : a;
        const body = await w.body();
        const r = await callAs(t.app, ip, "POST", "/v2/launches", { cookie: cookies[i], body });
        expect(t.check("/v2/launches", r.status, r.body, "post")).toEqual([]);
        return r;
      }),
    );

    const created = answers.filter((r) => r.status === 201);
    expect(created).toHaveLength(10);
    for (const r of answers.filter((x) => x.status !== 201)) expectOverBudget(r, [3000, 3600]);
    const after = { ...(await relayerState()), launches: await launchCount() };
    // On the chain: ten createLaunch transactions from the relayer, nothing else, none waiting.
    expect(after.mined - before.mined).toBe(10);
    expect(after.pending).toBe(after.mined);
    expect(after.launches - before.launches).toBe(10n);
    const hashes = created.map((r) => r.body.data.txHash as Hex);
    expect(before.balance - after.balance).toBe(await gasPaid(hashes));
    // In the database: a request row for each launch, none for a refusal.
    expect((await rows("deposit_launch_requests")) - requests).toBe(10);
    // The image is fetched only with a place in the budget held: the 40 refusals cost none.
    expect(imageFetches - fetchesBefore).toBe(10);
  }, 120_000);

  it("an IPv6 client rotating addresses inside its /64 has one budget; the next /64 has its own", async () => {
    const t = await api({ ...BUDGET, perClientPerHour: 3 });
    const inside = ["2001:db8:77:1::1", "2001:db8:77:1:a:b:c:d", "2001:db8:77:1:ffff::9"];
    for (const ip of inside) expect((await launch(t, ip, fresh())).status).toBe(201);
    const before = await relayerState();
    expectOverBudget(await launch(t, "2001:db8:77:1:1234:5678:9abc:def0", fresh()), [3000, 3600]);
    expect(await relayerState()).toEqual(before);
    expect((await launch(t, "2001:db8:77:2::1", fresh())).status).toBe(201);
  }, 60_000);

  it("does not count a launch that sent nothing", async () => {
    // A relayer with no BNB: the node refuses every createLaunch, so nothing is sent.
    const broke = fresh();
    const t = await api({ ...BUDGET, perClientPerHour: 2 }, { relayer: broke });
    const ip = "198.51.100.20";
    for (let i = 0; i < 3; i++) {
      const r = await launch(t, ip, fresh());
      expect(r.status, JSON.stringify(r.body)).toBe(502);
      expect(r.body.error).toBe("upstream_error");
    }
    // Funded now: the client still has its two launches.
    await w.chain.testClient.setBalance({ address: broke.address, value: parseEther("10") });
    expect((await launch(t, ip, fresh())).status).toBe(201);
    expect((await launch(t, ip, fresh())).status).toBe(201);
    expectOverBudget(await launch(t, ip, fresh()), [3000, 3600]);
    expect((await relayerState(broke)).mined).toBe(2);
  }, 60_000);
});

describe("the relayer's budget per day", () => {
  it("stops at the day's budget until the next UTC day, and /metrics shows the spend against it", async () => {
    // Room for two launches and a half today, whatever the tests before spent.
    const gasPrice = await w.chain.publicClient.getGasPrice();
    const oneLaunch = gasLimitFor(2_400_000n) * gasPrice;
    const spent = await relayerSpentToday(w.db.sql);
    const perDayWei = spent + (oneLaunch * 5n) / 2n;
    const t = await api({ perClientPerHour: 10, perDayWei });
    expect((await launch(t, "192.0.2.1", fresh())).status).toBe(201);
    expect((await launch(t, "192.0.2.2", fresh())).status).toBe(201);
    const [requests, spends, before] = [
      await rows("deposit_launch_requests"),
      await rows("relayer_spend"),
      await relayerState(),
    ];
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const untilMidnight = Math.ceil((midnight - now.getTime()) / 1000);
    expectOverBudget(await launch(t, "192.0.2.3", fresh()), [untilMidnight - 60, untilMidnight]);
    expect(await relayerState()).toEqual(before);
    expect([await rows("deposit_launch_requests"), await rows("relayer_spend")]).toEqual([
      requests,
      spends,
    ]);

    const metrics = await (await t.app.request("/metrics")).text();
    const value = (name: string) =>
      Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(metrics)?.[1]);
    const today = await relayerSpentToday(w.db.sql);
    expect(today).toBeLessThanOrEqual(perDayWei);
    expect(value("launchpad_relayer_spent_today_bnb")).toBeCloseTo(Number(formatEther(today)), 12);
    expect(value("launchpad_relayer_budget_bnb")).toBeCloseTo(Number(formatEther(perDayWei)), 12);
    expect(
      value('launchpad_relayer_budget_refusals_total\\{scope="day"\\}'),
    ).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
