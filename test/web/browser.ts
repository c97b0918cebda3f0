import { mkdirSync } from "node:fs";
import { join } from "node:path";
import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import {
  type Account,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type WalletClient,
} from "viem";
import { ROOT } from "../helpers/cli.ts";

// A headless Chromium from the `@sparticuz/chromium` npm package (the browser ships inside the
// package: nothing is downloaded at install or test time), driven by puppeteer-core, and an
// EIP-1193 test wallet injected into pages: a devnet key held by the test process.

/** Screenshots for a person to look at (gitignored). */
export const SHOTS_DIR = join(ROOT, "test-output", "web");

export const VIEWPORTS = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
} as const;

export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: chromium.args,
    headless: true,
    defaultViewport: VIEWPORTS.desktop,
  });
}

/** Writes `<name>-<viewport>.png` for each viewport, restoring the desktop size after. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  for (const [label, vp] of Object.entries(VIEWPORTS)) {
    // Chromium can answer "0 width" while it lays out the new viewport: set it and try again.
    for (let attempt = 0; ; attempt++) {
      await page.setViewport(vp);
      try {
        await page.screenshot({
          path: join(SHOTS_DIR, `${name}-${label}.png`) as `${string}.png`,
          fullPage: true,
        });
        break;
      } catch (error) {
        if (attempt >= 2 || !/0 width/.test(String(error))) throw error;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }
  await page.setViewport(VIEWPORTS.desktop);
}

/**
 * Gives `page` a `window.ethereum` (EIP-1193) backed by `account`: accounts and chain id
 * answered here, `personal_sign` and `eth_sendTransaction` signed with the key, everything
 * else forwarded to the devnet's JSON-RPC.
 */
export async function injectWallet(
  page: Page,
  account: Account,
  rpcUrl: string,
): Promise<WalletClient> {
  const chain = defineChain({
    id: 56,
    name: "devnet",
    nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  // Like a real wallet: no account for the site until the user connects (eth_requestAccounts).
  let granted = false;
  await page.exposeFunction("__testWallet", async (method: string, params: unknown[]) => {
    switch (method) {
      case "eth_requestAccounts":
        granted = true;
        return [account.address];
      case "eth_accounts":
        return granted ? [account.address] : [];
      case "eth_chainId":
        return "0x38";
      case "personal_sign":
        return wallet.signMessage({ account, message: params[0] as string });
      case "eth_sendTransaction": {
        const tx = params[0] as { to: Hex; data?: Hex; value?: Hex };
        return wallet.sendTransaction({
          account,
          chain,
          to: tx.to,
          data: tx.data,
          value: tx.value ? BigInt(tx.value) : 0n,
        });
      }
      default: {
        const res = await fetch(rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        });
        const body = (await res.json()) as { result?: unknown; error?: { message: string } };
        if (body.error) throw new Error(body.error.message);
        return body.result;
      }
    }
  });
  // In-page code as text: this file is type-checked without the DOM library.
  await page.evaluateOnNewDocument(`window.ethereum = {
    request: ({ method, params }) => window.__testWallet(method, params ?? []),
  };`);
  return wallet;
}

/** Whether the document is wider than the viewport (a horizontal scroll bar on a phone). */
export function overflowsHorizontally(page: Page): Promise<boolean> {
  return page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth + 1",
  ) as Promise<boolean>;
}
