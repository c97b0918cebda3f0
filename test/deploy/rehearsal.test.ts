import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { createPublicClient, createTestClient, type Hex, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { DEVNET_DEFAULTS } from "../../devnet/deploy.ts";
import type { DeploymentRecord } from "../../devnet/record.ts";
import { samplePng } from "../../devnet/stand-ins/four-meme/sample-image.ts";
import { createFourMemeApp } from "../../devnet/stand-ins/four-meme/server.ts";
import { createStewardApp } from "../../devnet/stand-ins/steward/server.ts";
import { MAINNET } from "../../lib/config.ts";
import { freeListenPort } from "../../lib/local/net.ts";
import {
  type StartEmbeddedPostgresReturnType,
  startEmbeddedPostgres,
} from "../../lib/local/postgres/embedded.ts";
import { createLogger } from "../../lib/logger.ts";
import { type BareBsc, startBareBsc } from "../helpers/bare-bsc.ts";
import { cleanEnv, ROOT, runCli, waitFor } from "../helpers/cli.ts";
import { bearer, createAgentCli, launch, launchBody } from "../helpers/launch.ts";

// The go-live rehearsal of docs/deploy.md: a chain holding only BSC's outside contracts at
// their mainnet addresses, `launchpad deploy` run against it, then the roles as separate
// processes with LAUNCHPAD_ENV=production on a Postgres they did not start, each with its own
// empty data directory and every outside service reached by URL (the launch image over TLS
// from the operator's own host, trusted through NODE_EXTRA_CA_CERTS). An agent is launched and
// indexed end to end, the database is restarted under the roles, and a second agent follows.

const ADMIN = "rehearsal-admin-token-0123456789abcdef";
const secret = (c: string) => c.repeat(32);
let bsc: BareBsc;
let pg: StartEmbeddedPostgresReturnType;
let pgDir: string;
const closers: (() => Promise<void> | void)[] = [];
const roles = new Map<string, ChildProcess>();
let env: Record<string, string>;
let apiUrl: string;
const logs = mkdtempSync(join(tmpdir(), "rehearsal-logs-"));

function startRole(role: string, extra: Record<string, string> = {}) {
  const out = openSync(join(logs, `${role}.log`), "a");
  const child = spawn(process.execPath, [join(ROOT, "bin", "launchpad.js"), role], {
    cwd: ROOT,
    env: cleanEnv({
      ...env,
      LAUNCHPAD_DATA_DIR: mkdtempSync(join(tmpdir(), `${role}-`)),
      ...extra,
    }),
    stdio: ["ignore", out, out],
  });
  roles.set(role, child);
}
const alive = (role: string) => {
  const c = roles.get(role);
  return c !== undefined && c.exitCode === null && c.signalCode === null;
};
const roleLog = (role: string) => readFileSync(join(logs, `${role}.log`), "utf8").slice(-3000);

/** A self-signed certificate for 127.0.0.1: the test CA the roles trust. */
function testCertificate(dir: string): { key: string; cert: string; certPath: string } {
  const keyPath = join(dir, "key.pem");
  const certPath = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      keyPath,
      "-out",
      certPath,
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { stdio: "ignore" },
  );
  return { key: readFileSync(keyPath, "utf8"), cert: readFileSync(certPath, "utf8"), certPath };
}

async function tokenIndexed(token: string): Promise<boolean> {
  const res = await fetch(`${apiUrl}/tokens/${token}`);
  return res.ok;
}

beforeAll(async () => {
  bsc = await startBareBsc({ blockTime: 1 });
  closers.push(bsc.stop);
  const test = createTestClient({ mode: "anvil", transport: http(bsc.rpcUrl) });
  const fund = async (bnb: string) => {
    const key = generatePrivateKey();
    await test.setBalance({ address: privateKeyToAccount(key).address, value: parseEther(bnb) });
    return key;
  };
  const deployerKey = await fund("2");
  const relayerKey = await fund("50");

  // The Postgres the roles are pointed at; they never start or stop it.
  pgDir = mkdtempSync(join(tmpdir(), "rehearsal-pg-"));
  pg = await startEmbeddedPostgres({ dataDir: pgDir });
  closers.push(() => pg.stop());

  // The outside world: Steward and four.meme on their ports, the image host over TLS.
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-"));
  const tls = testCertificate(dir);
  const png = samplePng(96);
  const images = createServer({ key: tls.key, cert: tls.cert }, (_req, res) => {
    res.writeHead(200, { "content-type": "image/png" }).end(png);
  });
  const imagePort = await freeListenPort();
  await new Promise<void>((r) => images.listen(imagePort, "127.0.0.1", r));
  closers.push(() => new Promise<void>((r) => images.close(() => r())));

  const [apiPort, stewardPort, fourMemePort, ponderPort] = await Promise.all([
    freeListenPort(),
    freeListenPort(),
    freeListenPort(),
    freeListenPort(),
  ]);
  apiUrl = `http://127.0.0.1:${apiPort}`;
  const log = createLogger("outside", "warn");
  const steward = createStewardApp({
    rpcUrl: bsc.rpcUrl,
    chainId: 56,
    apiKey: "stw-rehearsal-key",
    tenantId: "rehearsal",
    webhookBaseUrl: apiUrl,
    webhookSecret: secret("s"),
    storePath: join(dir, "steward.json"),
    masterKey: Buffer.alloc(32, 7),
    log,
  });
  const fourMeme = createFourMemeApp({
    // What the stand-in reads of a record: the chain, four.meme's address, WBNB, the raise.
    record: {
      chainId: 56,
      contracts: { tokenManager2: MAINNET.tokenManager2, wbnb: MAINNET.wbnb },
      params: { maxRaising: DEVNET_DEFAULTS.maxRaising.toString() },
    } as unknown as DeploymentRecord,
    signer: devnetAccounts().launchpadSigner,
    origin: `http://127.0.0.1:${fourMemePort}`,
    dir: join(dir, "four-meme"),
    log,
  });
  for (const [app, port] of [
    [steward, stewardPort],
    [fourMeme, fourMemePort],
  ] as const) {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port });
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
  }

  // docs/deploy.md, section 3: the contracts, handed to the operator (a plain key here).
  const owner = privateKeyToAccount(await fund("1")).address;
  const deployed = await runCli(
    ["deploy", "--owner", owner, "--allow-eoa-owner", "--out", join(dir, "deployments"), "--json"],
    {
      BSC_RPC_URL: bsc.rpcUrl,
      PAIR_INIT_CODE_HASH: bsc.pairInitCodeHash,
      DEPLOYER_PRIVATE_KEY: deployerKey,
      RELAYER_PRIVATE_KEY: relayerKey,
    },
    120_000,
  );
  if (deployed.code !== 0) throw new Error(`deploy failed: ${deployed.stderr}`);
  const lines = Object.fromEntries(
    (JSON.parse(deployed.stdout).env as string[]).map((l) => l.split("=") as [string, string]),
  );

  env = {
    LAUNCHPAD_ENV: "production",
    LOG_LEVEL: "info",
    DATABASE_URL: pg.url,
    BSC_RPC_URL: bsc.rpcUrl,
    BSC_WS_URL: bsc.rpcUrl.replace("http", "ws"),
    PAIR_INIT_CODE_HASH: bsc.pairInitCodeHash,
    ...lines,
    STEWARD_URL: `http://127.0.0.1:${stewardPort}`,
    STEWARD_API_KEY: "stw-rehearsal-key",
    STEWARD_TENANT_ID: "rehearsal",
    STEWARD_WEBHOOK_SECRET: secret("s"),
    SECRETS_KEY: `0x${"07".repeat(32)}`,
    CLOUD_WEBHOOK_SECRET: secret("c"),
    CODE_HOST_WEBHOOK_SECRET: secret("h"),
    AGENT_EVENTS_WEBHOOK_SECRET: secret("a"),
    FOUR_MEME_API_URL: `http://127.0.0.1:${fourMemePort}/meme-api`,
    RELAYER_PRIVATE_KEY: relayerKey,
    ADMIN_TOKEN: ADMIN,
    PORT: String(apiPort),
    PUBLIC_BASE_URL: apiUrl,
    PONDER_PORT: String(ponderPort),
    LAUNCH_IMAGE_TRUSTED_ORIGINS: `https://127.0.0.1:${imagePort}`,
    NODE_EXTRA_CA_CERTS: tls.certPath,
    TRUST_PROXY: "1",
  };
  env.IMAGE_URL = `https://127.0.0.1:${imagePort}/agent.png`;

  // docs/deploy.md, start order: the indexer, then the worker, then the API.
  startRole("indexer");
  await waitFor(
    "the indexer",
    async () =>
      (await fetch(`http://127.0.0.1:${ponderPort}/ready`).catch(() => undefined))?.ok || undefined,
    180_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${roleLog("indexer")}`);
  });
  startRole("worker");
  startRole("api");
  await waitFor(
    "the API",
    async () => (await fetch(`${apiUrl}/health`).catch(() => undefined))?.ok || undefined,
    120_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${roleLog("api")}\n${roleLog("worker")}`);
  });
}, 420_000);

afterAll(async () => {
  for (const child of roles.values()) child.kill("SIGTERM");
  await Promise.all(
    [...roles.values()].map(
      (c) =>
        new Promise((r) =>
          c.exitCode !== null || c.signalCode !== null ? r(null) : c.once("exit", r),
        ),
    ),
  );
  for (const close of closers.reverse()) await close();
}, 120_000);

async function launchOne(name: string): Promise<string> {
  const agent = await createAgentCli({ ...env, LAUNCHPAD_DATA_DIR: pgDir }, name);
  const ticker = name.replace(/[^A-Z]/g, "").slice(0, 6) || "RHS";
  const r = await launch(
    apiUrl,
    launchBody(agent, env.IMAGE_URL as string, { name, ticker }),
    bearer(agent),
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const token = r.body.data?.tokenAddress;
  expect(typeof token).toBe("string");
  await waitFor(
    "the token in the index",
    async () => (await tokenIndexed(token)) || undefined,
    120_000,
  );
  return token as string;
}

describe("go-live rehearsal", () => {
  it("launches and indexes an agent on a freshly deployed chain, survives a database restart, and launches again", async () => {
    const first = await launchOne("Rehearsal ONE");
    const client = createPublicClient({ transport: http(bsc.rpcUrl) });
    expect(await client.getCode({ address: first as Hex })).toMatch(/^0x[0-9a-f]{10}/);

    await pg.stop();
    await new Promise((r) => setTimeout(r, 5_000));
    pg = await startEmbeddedPostgres({ dataDir: pgDir, port: pg.port });
    for (const role of ["indexer", "worker", "api"]) expect(alive(role), roleLog(role)).toBe(true);
    await waitFor(
      "deep health after the restart",
      async () =>
        // The operator's budget: a poll every 250 ms is past the anonymous 60 a minute.
        (
          await fetch(`${apiUrl}/health?deep=true`, {
            headers: { authorization: `Bearer ${ADMIN}` },
          }).catch(() => undefined)
        )?.ok || undefined,
      120_000,
    );

    const second = await launchOne("Rehearsal TWO");
    expect(second).not.toBe(first);
    for (const role of ["indexer", "worker", "api"]) expect(alive(role), roleLog(role)).toBe(true);
  }, 420_000);
});
