import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import pino from "pino";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  http,
  type PublicClient,
  parseEther,
} from "viem";
import { uniswapV2Router02Abi } from "../../abis/UniswapV2Router02.ts";
import { createApp } from "../../api/app.ts";
import { startServer } from "../../api/server.ts";
import { defaultApiSettings } from "../../api/settings.ts";
import { loadExternalArtifact } from "../../contracts/external.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { startAnvil } from "../../devnet/anvil.ts";
import { deployDevnet } from "../../devnet/deploy.ts";
import { minedReceipt } from "../../devnet/mined-receipt.ts";
import type { DeploymentRecord } from "../../devnet/record.ts";
import { startHyperliquidStandIn } from "../../devnet/stand-ins/hyperliquid/start.ts";
import { createStewardApp } from "../../devnet/stand-ins/steward/server.ts";
import { drainInboxBatch } from "../../jobs/events/consumer.ts";
import { createAgent } from "../../lib/agents/keys.ts";
import { createSql, type Sql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { freePort } from "../../lib/local/net.ts";
import { startEmbeddedPostgres } from "../../lib/local/postgres/embedded.ts";
import { activePolicy } from "../../lib/policy/store.ts";
import { createHyperliquidClient } from "../../services/hyperliquid/client.ts";
import { createStewardClient, type StewardClient } from "../../services/steward/client.ts";

export const ADMIN = "policy-test-admin-token-0123456789abcdef";
const TENANT = "launchpad-policy-test";
const SECRET = "steward-webhook-secret-0123456789";

/** The world of the policy tests: a real chain, DEX, venue, signer, API and Postgres. */
export type PolicyWorld = {
  apiUrl: string;
  sql: Sql;
  client: PublicClient;
  record: DeploymentRecord;
  steward: StewardClient;
  hlUrl: string;
  /** The policy's clock (the service's, test mode): real time plus this offset. */
  clock: { offsetMs: number };
  /** Set to pause the next signing call after it read its policy version. */
  hooks: { afterPolicyRead?: (walletId: string) => Promise<void> };
  agent: { agentId: string; apiKey: string; token: Address; walletId: string; wallet: Address };
  /** A token with a BNB pair on the DEX (1 token = 1 BNB at the start). */
  spotToken: Address;
  /** Moves inbox rows into the feed (the worker's consumer, run here). */
  drain: () => Promise<void>;
  stop: () => Promise<void>;
};

/**
 * Boots anvil with the devnet contracts, embedded Postgres, the perps venue stand-in, the
 * steward stand-in over HTTP and the API over HTTP, and one agent with a funded wallet.
 */
export async function startPolicyWorld(): Promise<PolicyWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), "policy-test-"));
  const log = pino({ level: "silent" });
  const anvil = await startAnvil({ port: await freePort(), blockTime: 0 });
  const record = await deployDevnet({ rpcUrl: anvil.rpcUrl, dataDir });
  const pg = await startEmbeddedPostgres({ dataDir });
  const sql = createSql(pg.url, { appName: "policy-test" });
  await migrate(sql);
  const hl = await startHyperliquidStandIn({ log, walkEveryMs: 0 });
  const chain = defineChain({
    id: 56,
    name: "devnet",
    nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  const client = createPublicClient({ chain, transport: http(anvil.rpcUrl) }) as PublicClient;

  const apiKey = randomBytes(24).toString("hex");
  const clock = { offsetMs: 0 };
  const hooks: PolicyWorld["hooks"] = {};
  const stewardPort = await freePort();
  const stewardUrl = `http://127.0.0.1:${stewardPort}`;
  const steward = createStewardClient({
    url: stewardUrl,
    apiKey,
    tenantId: TENANT,
    timeoutMs: 20_000,
  });
  const c = record.contracts;

  const app = createApp({
    logger: log,
    env: "test",
    sql,
    settings: defaultApiSettings({
      rpcUrls: [anvil.rpcUrl],
      rateLimit: { unauthenticated: 100_000, authenticated: 100_000 },
    }),
    dashboard: { policy: (id) => activePolicy(sql, id) },
    adminToken: ADMIN,
    events: {
      webhookSecrets: { steward: SECRET, cloud: SECRET, codeHost: SECRET, agentEvents: SECRET },
    },
    policy: {
      steward,
      spot: {
        client,
        router: c.uniswapV2Router,
        wbnb: c.wbnb,
        bnbUsdFeed: c.bnbUsdFeed,
        platform: [c.identityRegistry, c.tokenManager2],
      },
      perps: { ...createHyperliquidClient({ apiUrl: hl.url }), isMainnet: true },
      now: () => new Date(Date.now() + clock.offsetMs),
      afterPolicyRead: (id) => hooks.afterPolicyRead?.(id) ?? Promise.resolve(),
    },
  });
  const api = await startServer({ app, host: "127.0.0.1", port: 0, logger: log });
  const apiUrl = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;

  const stewardApp = createStewardApp({
    rpcUrl: anvil.rpcUrl,
    chainId: 56,
    apiKey,
    tenantId: TENANT,
    webhookBaseUrl: apiUrl,
    webhookSecret: SECRET,
    storePath: join(dataDir, "steward", "store.json"),
    masterKey: randomBytes(32),
    log,
    // Benchmarks and policy suites sign in bursts from one address, far past one production
    // caller's pace; Steward's 100 a minute is the stand-in's own test's
    // (devnet/stand-ins/steward/rate-limit.test.ts).
    requestsPerMinute: 1_000_000,
  });
  const stewardServer = serve({
    fetch: stewardApp.fetch,
    hostname: "127.0.0.1",
    port: stewardPort,
  });

  // The agent: registered, a signer wallet, a token address of its own (no launch needed).
  const issued = await createAgent(sql, { name: "policy-agent" });
  const w = await steward.provisionWallet({ agentId: issued.agentId });
  const token = `0x${randomBytes(20).toString("hex")}` as Address;
  await sql`update app.agents set token_address = ${token}, wallet_address = ${w.address},
    ticker = 'POL', description = 'policy test agent', image_url = 'https://x.test/a.png',
    status = 'active', launched_at = now() where agent_id = ${issued.agentId}`;
  await sql`insert into app.launch_sagas (agent_id, status, request, wallet_id, wallet_address)
    values (${issued.agentId}, 'succeeded', '{}', ${w.walletId}, ${w.address})`;

  // Money: BNB for the wallet, USDC at the venue, and a DEX pair for a spot token.
  const [payer, lp] = devnetAccounts().external as [never, never];
  const wallet = (account: never) =>
    createWalletClient({ account, chain, transport: http(anvil.rpcUrl) });
  const test = createTestClient({ chain, mode: "anvil", transport: http(anvil.rpcUrl) });
  const wait = (hash: `0x${string}`) => minedReceipt({ client, test, hash });
  await wait(await wallet(payer).sendTransaction({ to: w.address, value: parseEther("20") }));
  await fetch(`${hl.url}/_control/deposit`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: w.address, usdc: "100000" }),
  });
  const weth = loadExternalArtifact("WETH9");
  const deployed = await wait(
    await wallet(lp).deployContract({ abi: weth.abi, bytecode: weth.bytecode }),
  );
  const spotToken = deployed.contractAddress as Address;
  await wait(
    await wallet(lp).writeContract({
      address: spotToken,
      abi: [
        { type: "function", name: "deposit", stateMutability: "payable", inputs: [], outputs: [] },
      ],
      functionName: "deposit",
      value: parseEther("100"),
    }),
  );
  await wait(
    await wallet(lp).writeContract({
      address: spotToken,
      abi: erc20Abi,
      functionName: "approve",
      args: [c.uniswapV2Router, parseEther("100")],
    }),
  );
  await wait(
    await wallet(lp).writeContract({
      address: c.uniswapV2Router,
      abi: uniswapV2Router02Abi,
      functionName: "addLiquidityETH",
      args: [spotToken, parseEther("100"), 0n, 0n, (lp as { address: Address }).address, 2n ** 40n],
      value: parseEther("100"),
    }),
  );

  return {
    apiUrl,
    sql,
    client,
    record,
    steward,
    hlUrl: hl.url,
    clock,
    hooks,
    agent: {
      agentId: issued.agentId,
      apiKey: issued.apiKey,
      token,
      walletId: w.walletId,
      wallet: w.address,
    },
    spotToken,
    drain: async () => {
      while ((await drainInboxBatch(sql)).processed > 0) {}
    },
    stop: async () => {
      await new Promise<void>((r) => stewardServer.close(() => r()));
      await api.close();
      await hl.stop();
      await sql.end({ timeout: 1 });
      await pg.stop();
      await anvil.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
