import type { Browser, Page } from "puppeteer-core";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  parseEther,
} from "viem";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { launchVaultAbi } from "../../abis/LaunchVault.ts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { unitsToNumber } from "../../web/format.ts";
import { WEB_LIMITS } from "../../web/limits.ts";
import { runCli, type Stack, waitFor } from "../helpers/cli.ts";
import {
  bearer,
  createAgentCli,
  launch,
  launchBody,
  nextIp,
  readRecord,
} from "../helpers/launch.ts";
import { sharedStack } from "../helpers/shared-stack.ts";
import {
  injectWallet,
  launchBrowser,
  overflowsHorizontally,
  screenshots,
  VIEWPORTS,
} from "./browser.ts";

// The web app in a real browser on one `launchpad start` (API, indexer, worker, devnet, web):
// the home page lists a launched agent (with the platform totals and a live trade ticker), its
// page's candles equal the API's, an on-chain buy
// reaches the tape, the feed and the last candle without a reload, a phone screen has no
// horizontal scroll, and a deposit made from the launch page with an injected wallet shows on
// the page and on-chain. Screenshots land in test-output/web/.

vi.setConfig({ testTimeout: 240_000 });

// biome-ignore lint/suspicious/noExplicitAny: API bodies, read by the assertions
type Body = Record<string, any>;

const accounts = devnetAccounts();
const trader = accounts.external[1] as (typeof accounts.external)[number];
const depositor = accounts.external[2] as (typeof accounts.external)[number];
const creator = accounts.external[3] as (typeof accounts.external)[number];

let stack: Stack;
let env: Record<string, string>;
let web: string;
let rpc: string;
let browser: Browser;
let token: Address;
const NAME = "Browser Agent";

const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${stack.apiUrl}${path}`, {
    ...init,
    headers: { "x-forwarded-for": nextIp(), ...(init.headers as Record<string, string>) },
  });
  return { status: res.status, body: (await res.json()) as Body, res };
};

const chain = () => createPublicClient({ transport: http(rpc) });
const walletOf = (account: typeof trader) =>
  createWalletClient({
    account,
    chain: {
      id: 56,
      name: "devnet",
      nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
      rpcUrls: { default: { http: [rpc] } },
    },
    transport: http(rpc),
  });

/** A curve buy of the agent's token by `trader`, mined. */
async function buy(bnb: string): Promise<Hex> {
  const record = readRecord(env.LAUNCHPAD_DATA_DIR as string);
  const funds = parseEther(bnb);
  const hash = await walletOf(trader).writeContract({
    address: record.contracts.tokenManager2 as Address,
    abi: tokenManager2Abi,
    functionName: "buyTokenAMAP",
    args: [token, trader.address, funds, 0n],
    value: funds,
    gas: 600_000n,
  });
  const r = await chain().waitForTransactionReceipt({ hash });
  expect(r.status).toBe("success");
  return hash;
}

async function open(path: string, viewport: keyof typeof VIEWPORTS = "desktop"): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport(VIEWPORTS[viewport]);
  page.on("pageerror", (e) => console.error(`[browser] ${path}: ${String(e)}`));
  const res = await page.goto(`${web}${path}`, { waitUntil: "domcontentloaded" });
  expect(res?.status(), `${path}: ${(await res?.text())?.replace(/\s+/g, " ").slice(-600)}`).toBe(
    200,
  );
  return page;
}

// In-page code is written as text: tests are type-checked without the DOM library.
const text = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent ?? "");
// On a timeout, say what the page showed instead (the wallet's own error message).
const statusHas = (page: Page, id: string, words: string, timeout = 30_000) =>
  page
    .waitForFunction(
      `document.getElementById(${JSON.stringify(id)})?.textContent?.includes(${JSON.stringify(words)})`,
      { timeout },
    )
    .catch(async (error: unknown) => {
      const shown = await page
        .evaluate(`document.querySelector("main")?.innerText ?? ""`)
        .catch(() => "?");
      throw new Error(`#${id} never showed "${words}"; the page showed:\n${shown}`, {
        cause: error,
      });
    });

/** What the chart holds, as [time, open, high, low, close] rows. */
const chartRows = (page: Page) =>
  page.evaluate(
    "window.launchpadChart.candles().map((c) => [c.time, c.open, c.high, c.low, c.close])",
  ) as Promise<number[][]>;

beforeAll(async () => {
  // The shared stack (test/helpers/shared-stack.ts): the default limits, and WEB_URL on the web
  // app's own port. The web server's reads count in its own budget at the API (its service
  // key), so the browser and this test keep 127.0.0.1's anonymous one.
  let shared: Awaited<ReturnType<typeof sharedStack>>;
  [shared, browser] = await Promise.all([sharedStack(), launchBrowser()]);
  ({ stack, env } = shared);
  web = env.WEB_URL as string;
  expect(web).toBe(`http://127.0.0.1:${env.WEB_PORT}`);
  rpc = `http://127.0.0.1:${env.DEVNET_PORT}`;
  const info = await runCli(["devnet", "info", "--json"], env);
  const image = JSON.parse(info.stdout).sampleImageUrl;
  const agent = await createAgentCli(env, NAME);
  const r = await launch(
    stack.apiUrl,
    launchBody(agent, image, { name: NAME, ticker: "BRWS" }),
    bearer(agent),
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  token = r.body.data.tokenAddress.toLowerCase();
  await waitFor(
    "the token indexed",
    async () => ((await api(`/tokens/${token}`)).status === 200 ? true : undefined),
    120_000,
  );
  await buy("0.2"); // a first candle before any page is opened
}, 480_000);

afterAll(async () => {
  await browser?.close();
});

describe("the web app", () => {
  it("prints its URL in the banner and links agent pages to itself", async () => {
    expect(stack.output()).toContain(`Web        ${web}`);
    const a = await api(`/v2/agents/${token}`);
    expect(a.body.data.agentPageUrl).toBe(`${web}/agent/${token}`);
    const res = await fetch(a.body.data.agentPageUrl);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(NAME);
  });

  it("lists the launched agent on the home page and links to its page", async () => {
    const page = await open("/");
    // The token list's link (the ticker above it links the token too).
    const link = await page.waitForSelector(`a.token[href="/agent/${token}"]`);
    expect(await link?.evaluate((el) => el.textContent ?? "")).toContain(NAME);
    await screenshots(page, "home");
    await Promise.all([
      page.waitForNavigation({ waitUntil: "domcontentloaded" }),
      page.click(`a.token[href="/agent/${token}"]`),
    ]);
    await page.waitForSelector("#chart");
    expect(new URL(page.url()).pathname).toBe(`/agent/${token}`);
    await page.close();
  });

  it("shows the API's candles, then a buy in the tape, the feed and the last candle with no reload", async () => {
    const page = await open(`/agent/${token}`);
    // A figure for the notes, not an assertion: the server-rendered page (stats, tape, feed,
    // holdings) is complete at responseEnd; the islands run by domContentLoadedEventEnd.
    const timing = (await page.evaluate(
      "(({ responseEnd, domContentLoadedEventEnd }) => ({ responseEnd, domContentLoadedEventEnd }))(performance.getEntriesByType('navigation')[0])",
    )) as { responseEnd: number; domContentLoadedEventEnd: number };
    console.log(
      `agent page: HTML complete at ${timing.responseEnd.toFixed(0)} ms, DOMContentLoaded at ${timing.domContentLoadedEventEnd.toFixed(0)} ms`,
    );
    await statusHas(page, "chart-status", "candles of");
    const interval = (await page.evaluate("window.launchpadChart.interval()")) as string;
    const chart = await api(`/tokens/${token}/chart?interval=${interval}&limit=1000`);
    const expected = chart.body.data.items.map((c: Body) => [
      Date.parse(c.time) / 1000,
      unitsToNumber(c.open),
      unitsToNumber(c.high),
      unitsToNumber(c.low),
      unitsToNumber(c.close),
    ]);
    expect(expected.length).toBeGreaterThan(0);
    expect(await chartRows(page)).toEqual(expected);
    const before = (await chartRows(page)).at(-1);

    // The page stays open; a marker on window proves no reload happened.
    await page.evaluate("window.marker = 42");
    const hash = await buy("0.5");
    const row = await page.waitForSelector(`#trades tr[data-key^="${hash}:"]`, { timeout: 60_000 });
    expect(await row?.evaluate((el) => el.className)).toContain("buy");
    const item = await page.waitForSelector(`#feed li[data-source-event-id^="56:${hash}:"]`, {
      timeout: 90_000,
    });
    expect(await item?.evaluate((el) => el.textContent ?? "")).toContain("bought");
    const after = (await chartRows(page)).at(-1) as number[];
    expect(after).not.toEqual(before);
    // The moved candle is the one the API now has for that bucket.
    const now = await api(`/tokens/${token}/chart?interval=${interval}&limit=1000`);
    const last = now.body.data.items.at(-1);
    expect(after).toEqual([
      Date.parse(last.time) / 1000,
      unitsToNumber(last.open),
      unitsToNumber(last.high),
      unitsToNumber(last.low),
      unitsToNumber(last.close),
    ]);
    expect(await page.evaluate("window.marker")).toBe(42);
    // Keyboard: the interval buttons are reachable with Tab and switch the chart with Enter.
    await page.focus('button[data-interval="1h"]');
    await page.keyboard.press("Enter");
    await statusHas(page, "chart-status", "of 1h");
    await screenshots(page, "agent");
    await page.close();
  });

  it("home page: the platform totals are /v2/stats's, and a buy reaches the ticker with no reload", async () => {
    const page = await open("/");
    const stats = (await api("/v2/stats")).body.data;
    const shown = (id: string) => text(page, `#${id}`);
    // Counts that move only with launches (this suite launches nothing meanwhile).
    expect(await shown("ps-agents")).toBe(stats.agents.toLocaleString("en-US"));
    expect(await shown("ps-launched")).toBe(stats.tokens.launched.toLocaleString("en-US"));
    expect(await shown("ps-graduated")).toBe(stats.tokens.graduated.toLocaleString("en-US"));
    await page.evaluate("window.marker = 7");
    const before = await page.$eval("#platform-stats", (el) => el.getAttribute("data-block"));
    const hash = await buy("0.1");
    const row = await page.waitForSelector(`#ticker li[data-key^="${hash}:"]`, { timeout: 60_000 });
    const line = await row?.evaluate((el) => el.textContent ?? "");
    expect(line).toContain("$BRWS");
    expect(line).toContain("buy");
    // The totals were read again after the trade (a newer indexed block), still no reload.
    await page.waitForFunction(
      `document.getElementById("platform-stats").dataset.block !== ${JSON.stringify(before)}`,
      { timeout: 30_000 },
    );
    expect(await page.evaluate("window.marker")).toBe(7);
    await screenshots(page, "home-ticker");
    await page.close();
  });

  it("the leaderboard lists the agents in the API's order and re-sorts by a column", async () => {
    const page = await open("/leaderboard");
    await page.waitForSelector(`#leaderboard a[href="/agent/${token}"]`);
    const order = (p: Page) =>
      p.$$eval("#leaderboard tbody tr", (rows) => rows.map((r) => r.getAttribute("data-agent")));
    const ids = (q: string) =>
      api(`/v2/agents?${q}&limit=20`).then((r) => r.body.data.items.map((a: Body) => a.agentId));
    expect(await order(page)).toEqual(await ids("sort=runwayDays&order=desc"));
    await Promise.all([
      page.waitForNavigation({ waitUntil: "domcontentloaded" }),
      page.click('#leaderboard a[data-sort="treasuryUsd"]'),
    ]);
    expect(new URL(page.url()).search).toBe("?sort=treasuryUsd&order=desc");
    expect(await order(page)).toEqual(await ids("sort=treasuryUsd&order=desc"));
    // A second click on the same column flips it.
    await Promise.all([
      page.waitForNavigation({ waitUntil: "domcontentloaded" }),
      page.click('#leaderboard a[data-sort="treasuryUsd"]'),
    ]);
    expect(await order(page)).toEqual(await ids("sort=treasuryUsd&order=asc"));
    await screenshots(page, "leaderboard");
    await page.close();
  });

  it("fits a 390-px phone screen with no horizontal scroll", async () => {
    for (const path of ["/", `/agent/${token}`, "/launches", "/leaderboard"]) {
      const page = await open(path, "phone");
      await page.waitForNetworkIdle({ idleTime: 300, timeout: 10_000 }).catch(() => {});
      expect(await overflowsHorizontally(page), path).toBe(false);
      await page.close();
    }
  });

  it("serves the featured agent at its slug, and 404 for unknown tokens and pages", async () => {
    const featured = await runCli(["agents", "feature", token], env);
    expect(featured.code, featured.stderr).toBe(0);
    const slug = await fetch(`${web}/a/browser-agent`);
    expect(slug.status).toBe(200);
    const page = await slug.text();
    expect(page).toContain(NAME);
    expect(page).toContain(`<link rel="canonical" href="${web}/agent/${token}">`);
    const home = await (await fetch(`${web}/`)).text();
    expect(home).toContain("Featured agent");
    for (const path of [
      "/agent/0x000000000000000000000000000000000000dead",
      "/agent/not-an-address",
      "/a/nobody",
      "/launches/999999",
      "/nowhere",
    ]) {
      const res = await fetch(`${web}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).toContain("Not found");
    }
  });

  it("serves more page views than the API's per-IP budget, reading under its own service budget", async () => {
    // 70 different home pages: at least 70 API reads by the web server, past the 60/min an
    // anonymous address gets. Every one renders, and the sign-in below still has the
    // browser's own budget on the same address.
    const statuses = new Set<number>();
    for (let p = 2; p < 72; p++) statuses.add((await fetch(`${web}/?page=${p}`)).status);
    expect([...statuses]).toEqual([200]);
  });

  it("signs in with an injected wallet and deposits from the launch page: on the page and on-chain", async () => {
    // A deposit launch, created over the API by another signed-in wallet.
    const cookie = await signInOverApi(creator);
    const now = Number((await chain().getBlock()).timestamp);
    const image = JSON.parse(
      (await runCli(["devnet", "info", "--json"], env)).stdout,
    ).sampleImageUrl;
    const created = await api("/v2/launches", {
      method: "POST",
      headers: { "content-type": "application/json", cookie, origin: web },
      body: JSON.stringify({
        tier: "0",
        name: "Browser Launch",
        symbol: "BRL",
        description: "A deposit launch for the browser test",
        image,
        closeTimestamp: now + 3600,
        buyTaxBps: 100,
        sellTaxBps: 100,
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id as string;
    const vault = created.body.data.vault as Address;
    await waitFor("the launch indexed", async () =>
      (await api(`/v2/launches/${id}`)).status === 200 ? true : undefined,
    );

    const page = await browser.newPage();
    await injectWallet(page, depositor, rpc);
    const res = await page.goto(`${web}/launches/${id}`, { waitUntil: "domcontentloaded" });
    expect(res?.status()).toBe(200);
    await page.click("#connect");
    await statusHas(page, "wallet-status", depositor.address);
    await page.click("#signin");
    await statusHas(page, "wallet-status", "Signed in as");
    // The API's session cookie works from the web origin (CORS with credentials).
    const session = (await page.evaluate(
      `fetch(${JSON.stringify(`${stack.apiUrl}/auth/session`)}, { credentials: "include" }).then((r) => r.json())`,
    )) as Body;
    expect(session.data.address).toBe(depositor.address.toLowerCase());

    await page.type("#deposit-amount", "0.25");
    await page.click("#deposit-form button[type=submit]");
    await statusHas(page, "tx-status", "confirmed", 60_000);
    // On-chain: the vault holds the wallet's deposit.
    const principal = await chain().readContract({
      address: vault,
      abi: launchVaultAbi,
      functionName: "deposits",
      args: [depositor.address],
    });
    expect(principal).toBe(parseEther("0.25"));
    // On the page: the wallet's deposit, the live event and the vault's total, no reload.
    expect(await text(page, "#my-deposit-amount")).toBe("0.25 BNB");
    await page.waitForSelector("#launch-events li", { timeout: 60_000 });
    expect(await text(page, "#launch-events")).toContain("deposited");
    await statusHas(page, "total-deposited", "0.25 BNB");
    // And after a reload, from the index: the depositor is listed.
    await waitFor("the deposit indexed", async () => {
      const d = await api(`/v2/launches/${id}/depositors`);
      return d.body.data.items.length === 1 ? true : undefined;
    });
    // The web app may serve an API answer up to WEB_LIMITS.apiCacheMs old: reload until fresh,
    // one reload per cache period (each costs API reads from the local IP's 60/min budget).
    const deadline = Date.now() + 30_000;
    for (;;) {
      await new Promise((r) => setTimeout(r, WEB_LIMITS.apiCacheMs + 100));
      const again = await page.reload({ waitUntil: "domcontentloaded" });
      expect(again?.status()).toBe(200);
      if ((await text(page, "main")).includes("Depositors (1)")) break;
      expect(Date.now() < deadline, "the depositor never showed after a reload").toBe(true);
    }
    await page.waitForSelector(`#depositors tr[data-account="${depositor.address.toLowerCase()}"]`);
    await screenshots(page, "launch");
    await page.close();
    const list = await open("/launches");
    expect(await text(list, "main")).toContain("Browser Launch");
    await screenshots(list, "launches");
    await list.close();
  });
});

/** SIWE over plain HTTP for the launch's creator (the web origin as domain), its cookie. */
async function signInOverApi(account: typeof creator): Promise<string> {
  const n = await api(`/auth/nonce?address=${account.address}`);
  const message = createSiweMessage({
    domain: new URL(web).host,
    address: account.address,
    uri: web,
    version: "1",
    chainId: 56,
    nonce: n.body.data.nonce,
    issuedAt: new Date(),
  });
  const signature = await account.signMessage({ message });
  const r = await api("/auth/verify", {
    method: "POST",
    headers: { "content-type": "application/json", origin: web },
    body: JSON.stringify({ message, signature }),
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return /siwe_session=[^;]+/.exec(r.res.headers.get("set-cookie") ?? "")?.[0] ?? "";
}
