import pino from "pino";
import type { Browser, Page } from "puppeteer-core";
import { type Address, erc20Abi, type LocalAccount, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { taxTokenAbi } from "../../abis/TaxToken.ts";
import { createApp } from "../../api/app.ts";
import { startServer } from "../../api/server.ts";
import { defaultApiSettings } from "../../api/settings.ts";
import { attachWebSocket } from "../../api/ws/bridge.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { runDividendKeeper } from "../../jobs/dividends/keeper.ts";
import { createAgent } from "../../lib/agents/keys.ts";
import { createSql, type Sql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { freePort } from "../../lib/local/net.ts";
import { WEB_LIMITS } from "../../web/limits.ts";
import { startWeb } from "../../web/server.ts";
import { createDividendToken } from "../helpers/dividend-token.ts";
import { type IndexerWorld, startIndexerWorld } from "../helpers/indexer-world.ts";
import type { PonderRun } from "../helpers/ponder.ts";
import {
  injectWallet,
  launchBrowser,
  overflowsHorizontally,
  screenshots,
  VIEWPORTS,
} from "./browser.ts";

// Issue 51 items 3 and 4 where a person meets them, in a real browser: the agent page shows its
// sell pledge (redrawn, with no reload, when the agent loosens it) and its token's tax income and
// dividends, every figure the chain's; the token list sorts by tax income; a holder claims from
// its own wallet on its portfolio, and another opts in to the keeper with SIWE, sees the keeper's
// claim arrive on the page, and opts out. A world of its own (anvil with the devnet contracts,
// Postgres, Ponder, the API with its WebSocket bridge, the web app, Chromium), because the shared
// stack's tokens have no holder share (their default terms, asserted by the launch suite) and
// its keeper runs every 15 minutes, where this test runs a keeper round when it wants one.
// Screenshots land in test-output/web/.

vi.setConfig({ testTimeout: 120_000 });

const SCHEMA = "holders_web";
// biome-ignore lint/suspicious/noExplicitAny: API bodies, read by the assertions
type Body = Record<string, any>;
const [creator, alice, bob, trader] = devnetAccounts().external as unknown as LocalAccount[] as [
  LocalAccount,
  LocalAccount,
  LocalAccount,
  LocalAccount,
];
const treasury = "0x00000000000000000000000000000000000fee02" as Address;

let w: IndexerWorld;
let run: PonderRun;
let sql: Sql;
let browser: Browser;
let token: Address;
let apiUrl: string;
let web: string;
let agent: { agentId: string; apiKey: string };
const closers: (() => Promise<unknown>)[] = [];

const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${apiUrl}${path}`, init);
  return { status: res.status, body: (await res.json()) as Body };
};
const pledge = (terms: Record<string, unknown>) =>
  api(`/v2/agents/${token}/pledge`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${agent.apiKey}` },
    body: JSON.stringify(terms),
  });
const read = <T>(functionName: string, args: unknown[] = [], blockNumber?: bigint) =>
  w.client.readContract({
    address: token,
    abi: taxTokenAbi,
    functionName,
    args,
    blockNumber,
  } as never) as Promise<T>;
const claimedLogs = async () =>
  (
    await w.client.getContractEvents({
      address: token,
      abi: taxTokenAbi,
      eventName: "FeeClaimed",
      fromBlock: 0n,
    })
  ).map((l) => ({ hash: l.transactionHash, ...(l.args as { account: Address; amount: bigint }) }));

async function open(path: string, wallet?: LocalAccount): Promise<Page> {
  const page = await browser.newPage();
  page.on("pageerror", (e) => console.error(`[browser] ${path}: ${String(e)}`));
  if (wallet) await injectWallet(page, wallet, w.anvil.rpcUrl);
  const res = await page.goto(`${web}${path}`, { waitUntil: "domcontentloaded" });
  expect(res?.status(), path).toBe(200);
  return page;
}
// In-page code is written as text: tests are type-checked without the DOM library.
const attr = (page: Page, selector: string, name: string) =>
  page.$eval(selector, (el, n) => el.getAttribute(n as string), name);
const text = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent ?? "");
const shows = (page: Page, selector: string, words: string, timeout = 60_000) =>
  page
    .waitForFunction(
      `document.querySelector(${JSON.stringify(selector)})?.textContent?.includes(${JSON.stringify(words)})`,
      { timeout },
    )
    .catch(async (error: unknown) => {
      const shown = await page.evaluate(`document.querySelector("main")?.innerText ?? ""`);
      throw new Error(`${selector} never showed "${words}"; the page showed:\n${shown}`, {
        cause: error,
      });
    });

/**
 * The phone screenshot reloads the page (a mobile viewport), which the web server renders from
 * API answers it reuses for `WEB_LIMITS.apiCacheMs`: wait that long so both show the same.
 */
async function screenshotsWhenFresh(page: Page, name: string) {
  await new Promise((r) => setTimeout(r, WEB_LIMITS.apiCacheMs + 100));
  await screenshots(page, name);
}

beforeAll(async () => {
  [w, browser] = await Promise.all([startIndexerWorld("web-holders-"), launchBrowser()]);
  sql = createSql(w.pg.url, { appName: "web-holders-test" });
  await migrate(sql);
  token = await createDividendToken(w, {
    name: "Holder Agent",
    symbol: "HOLD",
    requestId: 5151n,
    creator,
    treasury,
    holders: [alice, bob],
    trader,
    rounds: 3,
  });
  run = await w.ponder(SCHEMA);
  await run.waitFor(await w.head());
  // The agent behind the token, as a launch records it (the chain part is the token above).
  agent = await createAgent(sql, { name: "Holder Agent" });
  await sql`update app.agents set token_address = ${token}, ticker = 'HOLD', status = 'active',
    description = 'An agent whose holders earn dividends.', launched_at = now()
    where agent_id = ${agent.agentId}`;

  const logger = pino({ level: "silent" });
  const [apiPort, webPort] = [await freePort(), await freePort()];
  apiUrl = `http://127.0.0.1:${apiPort}`;
  web = `http://127.0.0.1:${webPort}`;
  const wsUrl = `ws://127.0.0.1:${apiPort}/ws`;
  const app = createApp({
    logger,
    env: "test",
    sql,
    settings: defaultApiSettings({
      rpcUrls: [w.anvil.rpcUrl],
      viewsSchema: SCHEMA,
      webUrl: web,
      apiUrl,
      wsUrl,
      rateLimit: { unauthenticated: 0, authenticated: 0 },
    }),
  });
  const server = await startServer({ app, host: "127.0.0.1", port: apiPort, logger });
  const ws = await attachWebSocket({
    server: server.server,
    sql,
    viewsSchema: SCHEMA,
    trustProxy: 0,
    logger,
  });
  const site = await startWeb({
    host: "127.0.0.1",
    port: webPort,
    webUrl: web,
    apiUrl,
    wsUrl,
    cacheDir: w.dataDir,
    logger,
  });
  closers.push(site.close, ws.close, server.close);
}, 400_000);
afterAll(async () => {
  await browser?.close();
  for (const close of closers) await close().catch(() => {});
  await sql?.end({ timeout: 1 });
  await w?.stop();
});

describe("the holders' panels in a browser", () => {
  it("the agent page shows the tax and dividends the chain holds and the pledge, and redraws the pledge the agent loosens", async () => {
    expect((await pledge({ lockDays: 30, maxDailySellPercent: "10" })).status).toBe(200);
    const page = await open(`/agent/${token}`);
    // Every figure as the token's own views and logs give it (exact in data-wei).
    const wei = (key: string) => attr(page, `#tax [data-tax="${key}"]`, "data-wei");
    const feeFounder = await read<bigint>("feeFounder");
    const feeHolder = await read<bigint>("feeHolder");
    const held = await w.client.readContract({
      address: w.record.contracts.wbnb,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [token],
    });
    expect(await wei("treasuryBnb")).toBe(feeFounder.toString());
    expect(await wei("accruedBnb")).toBe(feeHolder.toString());
    expect(await wei("incomeBnb")).toBe((feeFounder + feeHolder).toString());
    expect(await wei("claimedBnb")).toBe("0");
    expect(await wei("unclaimedBnb")).toBe(held.toString());
    expect(feeHolder).toBeGreaterThan(0n);

    const view = (await api(`/v2/agents/${token}/pledge`)).body.data;
    expect(await text(page, '#pledge [data-pledge="lock"]')).toMatch(
      /^ends in \d+ d \(30 days after launch\)$/,
    );
    expect(await attr(page, '#pledge [data-pledge="lock"] time', "datetime")).toBe(
      view.lockedUntil,
    );
    expect(await text(page, '#pledge [data-pledge="daily"]')).toBe("at most 10% of its holding");
    expect(await page.$("#pledge-pending")).toBeNull();

    // The agent loosens its pledge while the page is open: the page shows the loosening waiting
    // and when it binds, with no reload (a marker on window survives).
    await page.evaluate("window.marker = 51");
    const loose = await pledge({ lockDays: 0, maxDailySellPercent: "50" });
    expect(loose.body.data.pending).not.toBeNull();
    await page.waitForSelector("#pledge-pending", { timeout: 30_000 });
    expect(await attr(page, "#pledge-pending time", "datetime")).toBe(
      loose.body.data.pending.effectiveAt,
    );
    expect(await text(page, "#pledge-pending")).toContain("A loosening binds in ");
    expect(await text(page, "#pledge-pending")).toContain("at most 50% of its holding");
    const states = await page.$$eval("#pledge-history [data-field=state]", (els) =>
      els.map((e) => e.textContent),
    );
    expect(states).toEqual(["pending", "in force"]);
    expect(await page.evaluate("window.marker")).toBe(51);
    await screenshots(page, "agent-holders");
    await page.close();
  });

  it("the token list sorts by tax income and shows it", async () => {
    const page = await open("/?sort=taxIncome");
    const income = (await api(`/tokens/${token}/tax`)).body.data.incomeBnb;
    expect(await attr(page, "tbody tr:first-child [data-field=tax-income] span", "title")).toBe(
      `${income} wei`,
    );
    expect(await text(page, "tbody tr:first-child a.token")).toContain("Holder Agent");
    expect(await text(page, 'nav.tabs a[aria-current="true"]')).toBe("Tax income");
    await screenshots(page, "home-tax-income");
    await page.close();
  });

  it("a holder claims its dividends from its own wallet on its portfolio, and the figures move with no reload", async () => {
    // From any page: the header's Portfolio, then "Connect wallet", opens the wallet's own.
    const page = await open("/", alice);
    await Promise.all([
      page.waitForNavigation({ waitUntil: "domcontentloaded" }),
      page.click('header a[href="/portfolio"]'),
    ]);
    await Promise.all([
      page.waitForNavigation({ waitUntil: "domcontentloaded" }),
      page.click("#connect"),
    ]);
    expect(new URL(page.url()).pathname).toBe(`/portfolio/${alice.address.toLowerCase()}`);
    const shown = (await api(`/v2/users/${alice.address}/dividends`)).body.data;
    const owed = await read<bigint>("claimableFee", [alice.address], BigInt(shown.indexedBlock));
    expect(owed).toBeGreaterThan(0n);
    expect(await attr(page, "[data-field=claimable-total]", "data-wei")).toBe(owed.toString());
    expect(await attr(page, `tr[data-token="${token}"] [data-field=claimable]`, "data-wei")).toBe(
      owed.toString(),
    );
    await page.evaluate("window.marker = 4");
    await page.waitForFunction(`!document.getElementById("claim-dividends").disabled`);
    await page.click("#claim-dividends");
    await shows(page, "#dividends-status", "Claim confirmed");
    // The claim reaches the page over the wallet's channel once indexed: claimed is what was owed.
    await shows(page, "#dividends-status", "dividends paid to this address");
    await page.waitForFunction(
      `document.querySelector("[data-field=claimed-total]")?.dataset.wei === ${JSON.stringify(owed.toString())}`,
      { timeout: 30_000 },
    );
    expect(await attr(page, "[data-field=claimable-total]", "data-wei")).toBe("0");
    expect((await claimedLogs()).filter((l) => l.account === alice.address)).toEqual([
      expect.objectContaining({ amount: owed }),
    ]);
    expect(await page.evaluate("window.marker")).toBe(4);
    await screenshotsWhenFresh(page, "portfolio-dividends");
    await page.close();
  });

  it("a holder opts in to the keeper with SIWE, sees the keeper's claim arrive, and opts out", async () => {
    const page = await open(`/portfolio/${bob.address.toLowerCase()}`, bob);
    const owed = await read<bigint>("claimableFee", [bob.address]);
    expect(owed).toBeGreaterThan(0n);
    await page.click("#dividends-signin");
    await shows(page, "#dividends-status", "Signed in.");
    await page.waitForSelector("#auto-claim-on:not([hidden])");
    await page.click("#auto-claim-on");
    await shows(page, "[data-field=auto-claim]", "claims for this wallet");
    expect(await sql`select address from app.dividend_auto_claims`).toEqual([
      { address: bob.address.toLowerCase() },
    ]);

    // A keeper round while the page is open: its claim is pushed to the page.
    const round = await runDividendKeeper({
      relayer: {
        sql,
        log: pino({ level: "silent" }),
        client: w.client,
        relayer: devnetAccounts().relayer,
        chain: { id: 56 },
      },
      viewsSchema: SCHEMA,
      budget: {
        minClaimWei: 1n,
        dailyBudgetWei: 10n ** 18n,
        maxTxsPerRound: 10,
        maxAccountsPerTx: 100,
      },
    });
    expect(round.sent.map((s) => s.accounts)).toEqual([[bob.address.toLowerCase()]]);
    const receipt = await w.client.getTransactionReceipt({
      hash: round.sent[0]?.hash as `0x${string}`,
    });
    const [paid] = parseEventLogs({
      abi: taxTokenAbi,
      logs: receipt.logs,
      eventName: "FeeClaimed",
    });
    expect(paid?.args).toEqual({ account: bob.address, amount: owed });
    await shows(page, "#dividends-status", "dividends paid to this address");
    await shows(page, "#dividends-status", round.sent[0]?.hash as string);
    await page.waitForFunction(
      `document.querySelector("[data-field=claimed-total]")?.dataset.wei === ${JSON.stringify(owed.toString())}`,
      { timeout: 30_000 },
    );
    await screenshotsWhenFresh(page, "portfolio-keeper");

    await page.click("#auto-claim-off");
    await shows(page, "[data-field=auto-claim]", "off");
    expect(await sql`select address from app.dividend_auto_claims`).toEqual([]);
    await page.close();
  });

  it("fits a 390-px phone screen with no horizontal scroll", async () => {
    for (const path of [`/agent/${token}`, "/?sort=taxIncome", `/portfolio/${alice.address}`]) {
      const page = await browser.newPage();
      await page.setViewport(VIEWPORTS.phone);
      await page.goto(`${web}${path}`, { waitUntil: "domcontentloaded" });
      await page.waitForNetworkIdle({ idleTime: 300, timeout: 10_000 }).catch(() => {});
      expect(await overflowsHorizontally(page), path).toBe(false);
      await page.close();
    }
  });
});
