import {
  type Address,
  createWalletClient,
  type Hex,
  http,
  type PrivateKeyAccount,
  parseEther,
  parseEventLogs,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { launchVaultAbi } from "../../abis/LaunchVault.ts";
import { type Stack, waitFor } from "../helpers/cli.ts";
import { chainClient, readRecord } from "../helpers/launch.ts";
import { sharedStack } from "../helpers/shared-stack.ts";
import { injectWallet, launchBrowser } from "../web/browser.ts";
import { type Body, client, openApiChecker } from "./helpers.ts";

// what: A depositor's public portfolio (GET /v2/users/{address}/launches) through the real stack: deposited, withdrawn, principal, allocation, claimed, claimable and vesting per launch equal the vault's own events and its `claimable()` on-chain, before and after the launch executes and a claim; a bad address is a 400
// Its own launch (created on the factory by a fresh account, closing 20 s later) and three fresh
// accounts funded with anvil_setBalance: no other suite's launch or account is touched.

let stack: Stack;
let env: Record<string, string>;
let call: ReturnType<typeof client>;
let check: Awaited<ReturnType<typeof openApiChecker>>;
let chain: ReturnType<typeof chainClient>;
let vault: Address;
let launchId: string;
const fresh = () => privateKeyToAccount(generatePrivateKey());
const [creator, alice, bob] = [fresh(), fresh(), fresh()];
const TEMPLATE = "/v2/users/{address}/launches";

async function send(a: PrivateKeyAccount, to: Address, fn: string, args: unknown[], value = 0n) {
  const wallet = createWalletClient({
    account: a,
    transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`),
  });
  const abi = to === vault ? launchVaultAbi : launchFactoryAbi;
  const hash = await wallet.writeContract({
    chain: null,
    address: to,
    abi: abi as never,
    functionName: fn as never,
    args: args as never,
    value,
  } as never);
  const receipt = await chain.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return receipt;
}

/** The user's entry for our launch, once the indexer has reached `ready`. */
async function entry(user: Address, ready: (e: Body) => boolean): Promise<Body> {
  return waitFor(`${user}'s portfolio`, async () => {
    const r = await call("GET", `/v2/users/${user}/launches`);
    expect(check(TEMPLATE, "get", r.status, r.body)).toEqual([]);
    const e = (r.body.data.items as Body[]).find((x) => x.vault === vault);
    return e && ready(e) ? e : undefined;
  });
}

const claimableOnChain = (who: Address) =>
  chain.readContract({
    address: vault,
    abi: launchVaultAbi,
    functionName: "claimable",
    args: [who],
  }) as Promise<bigint>;

beforeAll(async () => {
  ({ stack, env } = await sharedStack());
  call = client(stack.apiUrl);
  check = await openApiChecker(stack.apiUrl);
  chain = chainClient(env);
  for (const a of [creator, alice, bob]) {
    await chain.request({
      method: "anvil_setBalance" as never,
      params: [a.address, `0x${parseEther("100").toString(16)}`] as never,
    });
  }
  const factory = readRecord(env.LAUNCHPAD_DATA_DIR as string).contracts.launchFactory as Address;
  const now = Number((await chain.getBlock()).timestamp);
  const receipt = await send(creator, factory, "createLaunch", [
    0,
    "Portfolio Test",
    "PFT",
    "",
    BigInt(now + 20),
    100,
    100,
    creator.address,
  ]);
  const [created] = parseEventLogs({
    abi: launchFactoryAbi,
    logs: receipt.logs,
    eventName: "LaunchCreated",
  }) as unknown as { args: { launchId: bigint; vault: Hex } }[];
  vault = (created as { args: { vault: Hex } }).args.vault.toLowerCase() as Address;
  launchId = String((created as { args: { launchId: bigint } }).args.launchId);
}, 240_000);

describe("a depositor's portfolio", () => {
  it("shows deposits net of a withdrawal, and no allocation before the launch executes", async () => {
    await send(alice, vault, "deposit", [], parseEther("1.2"));
    await send(alice, vault, "withdraw", [parseEther("0.3")]);
    await send(bob, vault, "deposit", [], parseEther("0.6"));
    const a = await entry(
      alice.address,
      (e) => e.withdrawn !== "0" && e.totalDeposited === String(parseEther("1.5")),
    );
    expect(a).toMatchObject({
      id: launchId,
      status: "open",
      created: false,
      deposited: String(parseEther("1.2")),
      withdrawn: String(parseEther("0.3")),
      principal: String(parseEther("0.9")),
      claimed: "0",
      claimable: "0",
      allocation: null,
      refundable: "0",
      vestedBps: 0,
    });
    const c = await entry(creator.address, () => true);
    expect(c).toMatchObject({ created: true, deposited: "0", withdrawn: "0", principal: "0" });
  });

  it("after execution and a claim, equals the vault's claimable() and its Claimed amount", async () => {
    await waitFor(
      "the close time",
      async () => {
        const t = (await chain.getBlock()).timestamp;
        const close = (await chain.readContract({
          address: vault,
          abi: launchVaultAbi,
          functionName: "closeTimestamp",
        })) as bigint;
        return t >= close ? true : undefined;
      },
      60_000,
    );
    await send(creator, vault, "close", []);
    await send(creator, vault, "executeLaunch", []);
    const [aliceTokens, bobTokens] = [
      await claimableOnChain(alice.address),
      await claimableOnChain(bob.address),
    ];
    expect(aliceTokens).toBeGreaterThan(0n);
    const b = await entry(bob.address, (e) => e.status === "launched");
    expect(b).toMatchObject({
      principal: String(parseEther("0.6")),
      allocation: String(bobTokens),
      claimable: String(bobTokens),
      claimed: "0",
      vestedBps: 10_000,
    });
    const receipt = await send(alice, vault, "claim", []);
    const [claimed] = parseEventLogs({
      abi: launchVaultAbi,
      logs: receipt.logs,
      eventName: "Claimed",
    }) as unknown as { args: { amount: bigint } }[];
    const a = await entry(alice.address, (e) => e.claimed !== "0");
    expect(a).toMatchObject({
      status: "launched",
      deposited: String(parseEther("1.2")),
      withdrawn: String(parseEther("0.3")),
      principal: String(parseEther("0.9")),
      allocation: String(aliceTokens),
      claimed: String(claimed?.args.amount),
      claimable: String(await claimableOnChain(alice.address)),
      vestedBps: 10_000,
    });
    expect(a.claimable).toBe("0");
  });

  it("shows the same figures on the web portfolio of the connected wallet, in Chromium", async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await injectWallet(page, alice, `http://127.0.0.1:${env.DEVNET_PORT}`);
      const res = await page.goto(`${env.WEB_URL}/portfolio`, { waitUntil: "domcontentloaded" });
      expect(res?.status()).toBe(200);
      await Promise.all([page.waitForNavigation(), page.click("#connect")]);
      expect(page.url()).toBe(`${env.WEB_URL}/portfolio/${alice.address.toLowerCase()}`);
      const api = await entry(alice.address, () => true);
      // Each cell's title is the exact figure; its text is for people.
      const cell = (field: string) =>
        page.$eval(`tr[data-launch="${launchId}"] td[data-field="${field}"] span`, (e) =>
          e.getAttribute("title"),
        );
      expect(await cell("deposited")).toBe(`${api.deposited} wei`);
      expect(await cell("withdrawn")).toBe(`${api.withdrawn} wei`);
      expect(await cell("allocation")).toBe(api.allocation);
      expect(await cell("claimed")).toBe(api.claimed);
      expect(await cell("claimable")).toBe(api.claimable);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it("refuses a malformed address in the error envelope", async () => {
    const r = await call("GET", "/v2/users/0xnot-an-address/launches");
    expect(r.status).toBe(400);
    expect(check(TEMPLATE, "get", r.status, r.body)).toEqual([]);
    expect(r.body).toMatchObject({ ok: false, error: "validation_failed" });
    expect(r.body.details.map((d: Body) => d.path)).toContain("address");
  });
});
