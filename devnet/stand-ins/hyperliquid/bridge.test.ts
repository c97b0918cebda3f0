import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  parseAbi,
  parseEther,
  parseUnits,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ARBITRUM_CHAIN_ID } from "../../../lib/arbitrum.ts";
import { viemChain } from "../../../lib/chain.ts";
import { loadConfig } from "../../../lib/config.ts";
import { freePort } from "../../../lib/local/net.ts";
import { devnetAccounts } from "../../accounts.ts";
import {
  arbitrumEnv,
  type RunArbitrumDevnetReturnType,
  runArbitrumDevnet,
} from "../../arbitrum.ts";

// The venue stand-in credits USDC sent to the bridge on the local Arbitrum chain, as
// Hyperliquid credits a Bridge2 deposit: `launchpad hyperliquid` as its own process (so it can
// be SIGKILLed) over a real anvil with the devnet's USDC. Each transfer is one deposit, through
// a kill, transfers made while it was down, and a reorg under its cursor.

const ROOT = join(import.meta.dirname, "..", "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "launchpad-hl-bridge-"));
const usdcAbi = parseAbi([
  "function mint(address to, uint256 value)",
  "function transfer(address to, uint256 value) returns (bool)",
]);
const sender = privateKeyToAccount(generatePrivateKey());
const user = sender.address.toLowerCase();

let arbitrum: RunArbitrumDevnetReturnType;
let venue: ChildProcess | undefined;
let venueUrl: string;
let env: Record<string, string>;

function startVenue(): Promise<void> {
  const child = spawn(process.execPath, [join(ROOT, "bin", "launchpad.js"), "hyperliquid"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  venue = child;
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.on("message", (m: { type?: string }) => m?.type === "ready" && resolve());
    child.on("exit", (code) => reject(new Error(`launchpad hyperliquid exited ${code}:\n${out}`)));
  });
}
async function killVenue(): Promise<void> {
  const child = venue;
  if (!child || child.exitCode !== null) return;
  const gone = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await gone;
}

const info = async (body: Record<string, unknown>) =>
  (await fetch(`${venueUrl}/info`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then((r) => r.json())) as never;
const deposits = async () =>
  (
    (await info({ type: "userNonFundingLedgerUpdates", user, startTime: 0 })) as {
      delta: { type: string; usdc: string };
    }[]
  )
    .filter((u) => u.delta.type === "deposit")
    .map((u) => Number(u.delta.usdc));
const accountValue = async () =>
  Number(
    (
      (await info({ type: "clearinghouseState", user })) as {
        marginSummary: { accountValue: string };
      }
    ).marginSummary.accountValue,
  );
const scanned = async () =>
  (
    (await fetch(`${venueUrl}/_control/state`).then((r) => r.json())) as {
      bridge: { nextBlock: number } | null;
    }
  ).bridge?.nextBlock ?? 0;

async function until<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let send: (usdc: string) => Promise<bigint>;

beforeAll(async () => {
  const config = loadConfig(
    { LAUNCHPAD_DATA_DIR: dataDir, ARBITRUM_DEVNET_PORT: String(await freePort()) },
    dataDir,
  );
  arbitrum = await runArbitrumDevnet({ config, log: () => {} });
  const rec = arbitrum.record;
  const chain = viemChain({ rpcUrls: [rec.rpcUrl], id: ARBITRUM_CHAIN_ID, name: "arbitrum" });
  const client = createPublicClient({ chain, transport: http(rec.rpcUrl) });
  const wait = async (hash: `0x${string}`) =>
    (await client.waitForTransactionReceipt({ hash, pollingInterval: 100 })).blockNumber;
  const minter = createWalletClient({
    account: devnetAccounts().deployer,
    chain,
    transport: http(rec.rpcUrl),
  });
  await wait(await minter.sendTransaction({ to: sender.address, value: parseEther("1") }));
  await wait(
    await minter.writeContract({
      address: rec.usdc,
      abi: usdcAbi,
      functionName: "mint",
      args: [sender.address, parseUnits("1000", 6)],
    }),
  );
  const wallet = createWalletClient({ account: sender, chain, transport: http(rec.rpcUrl) });
  send = async (usdc) =>
    wait(
      await wallet.writeContract({
        address: rec.usdc,
        abi: usdcAbi,
        functionName: "transfer",
        args: [rec.bridge as Address, parseUnits(usdc, 6)],
      }),
    );
  const port = String(await freePort());
  venueUrl = `http://127.0.0.1:${port}`;
  env = {
    LAUNCHPAD_ENV: "test",
    LAUNCHPAD_DATA_DIR: dataDir,
    HYPERLIQUID_PORT: port,
    LOG_LEVEL: "warn",
    ...arbitrumEnv(rec, { DEVNET_BLOCK_TIME: 0 }),
  };
  await startVenue();
}, 120_000);

afterAll(async () => {
  await killVenue();
  await arbitrum?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it("credits a transfer to the bridge once; under the 5 USDC minimum it is lost", async () => {
  await send("3");
  const block = await send("100");
  await until("the deposit credited", async () => (await deposits()).length === 1);
  await until("the scan past it", async () => (await scanned()) > Number(block));
  expect(await deposits()).toEqual([100]);
  expect(await accountValue()).toBe(100);
});

it("a SIGKILLed venue restarted from its state neither loses nor doubles a deposit", async () => {
  await killVenue();
  // Sent while the venue is down: credited when it is back.
  const block = await send("50");
  await startVenue();
  await until("the deposit made while down", async () => (await deposits()).length === 2);
  await until("the scan past it", async () => (await scanned()) > Number(block));
  expect((await deposits()).sort((a, b) => a - b)).toEqual([50, 100]);
  expect(await accountValue()).toBe(150);

  // Killed again at once after a transfer, before or after its scan: once either way.
  const next = await send("25");
  await killVenue();
  await startVenue();
  await until("the scan past the last transfer", async () => (await scanned()) > Number(next));
  expect((await deposits()).sort((a, b) => a - b)).toEqual([25, 50, 100]);
  expect(await accountValue()).toBe(175);
}, 60_000);

it("a reorg under the cursor is rescanned: a transfer in a replaced block is credited", async () => {
  const rec = arbitrum.record;
  const test = createTestClient({ mode: "anvil", transport: http(rec.rpcUrl) });
  const snapshot = await test.snapshot();
  await test.mine({ blocks: 3 });
  const client = createPublicClient({ transport: http(rec.rpcUrl) });
  const tip = Number(await client.getBlockNumber());
  await until("the scan past the mined blocks", async () => (await scanned()) > tip);
  // Back to the snapshot: the next transfer lands in a block the venue has already scanned.
  await test.revert({ id: snapshot });
  const block = await send("40");
  expect(Number(block)).toBeLessThanOrEqual(tip);
  await until("the deposit in the replaced block", async () => (await deposits()).length === 4);
  expect((await deposits()).sort((a, b) => a - b)).toEqual([25, 40, 50, 100]);
  expect(await accountValue()).toBe(215);
}, 60_000);
