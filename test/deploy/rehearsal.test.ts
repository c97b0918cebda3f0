import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, createTestClient, type Hex, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { samplePng } from "../../devnet/stand-ins/four-meme/sample-image.ts";
import { freeListenPort } from "../../lib/local/net.ts";
import {
  type StartEmbeddedPostgresReturnType,
  startEmbeddedPostgres,
} from "../../lib/local/postgres/embedded.ts";
import { type BareBsc, startBareBsc } from "../helpers/bare-bsc.ts";
import { cleanEnv, ROOT, runCli, waitFor } from "../helpers/cli.ts";
import { type Agent, bearer, createAgentCli, launch, launchBody } from "../helpers/launch.ts";
import { servePrivate, serveWorld, type WorldServer } from "../helpers/world/serve.ts";
import { WORLD_PRIVATE } from "../helpers/world/world.ts";
import { startReceiver, verifyStandardWebhook } from "../webhooks/outbound/receiver.ts";
import { type OutsideWorld, startOutsideWorld } from "./outside-world.ts";

// The go-live rehearsal of docs/deploy.md, in the public world (npm test): a chain holding only
// BSC's outside contracts at their mainnet addresses, `launchpad deploy` run against it, then
// the roles as separate processes with LAUNCHPAD_ENV=production on a Postgres they did not
// start, each with its own empty data directory. Every outside service (Steward, four.meme, the
// perps venue, the Safe Transaction Service, X, the image hosts, the webhook receivers) is at a
// DNS name with a public address, over TLS from the run's CA, and no origin is trusted: the
// roles meet them as they meet the internet. Targets inside are served and must be refused. An
// agent is launched with an image from an IPv4-only host, its events are delivered to receivers
// at a public IPv4 and a public IPv6 address, the database is restarted under the roles, and a
// second agent follows with an image from an IPv6-only host.

const ADMIN = "rehearsal-admin-token-0123456789abcdef";
const secret = (c: string) => c.repeat(32);
let bsc: BareBsc;
let pg: StartEmbeddedPostgresReturnType;
let pgDir: string;
const closers: (() => Promise<void> | void)[] = [];
const roles = new Map<string, ChildProcess>();
let env: Record<string, string>;
let apiUrl: string;
let outside: OutsideWorld;
const images: Record<"v4" | "v6", string> = { v4: "", v6: "" };
/** The same PNG at every private target, each on the port `insidePort`. */
let insidePort: number;
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

  // The outside world at public names over TLS; the private targets served beside it.
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-"));
  const png = samplePng(96);
  const image = (_req: unknown, res: import("node:http").ServerResponse) =>
    res.writeHead(200, { "content-type": "image/png" }).end(png);
  const hosts: WorldServer[] = [
    await serveWorld("images.example.net", image),
    await serveWorld("images6.example.net", image),
  ];
  images.v4 = `${hosts[0]?.origin}/agent.png`;
  images.v6 = `${hosts[1]?.origin}/agent.png`;
  const first = await servePrivate("127.0.0.1", image);
  insidePort = first.port;
  hosts.push(first);
  for (const a of [WORLD_PRIVATE.tenNet, WORLD_PRIVATE.metadata, WORLD_PRIVATE.nat64])
    hosts.push(await servePrivate(a, image, { port: insidePort }));
  closers.push(() => Promise.all(hosts.map((h) => h.close())).then(() => {}));

  const [apiPort, ponderPort] = await Promise.all([freeListenPort(), freeListenPort()]);
  apiUrl = `http://127.0.0.1:${apiPort}`;
  outside = await startOutsideWorld({
    dir,
    rpcUrl: bsc.rpcUrl,
    apiUrl,
    webhookSecret: secret("s"),
  });
  closers.push(outside.close);

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
    ...outside.env,
    STEWARD_WEBHOOK_SECRET: secret("s"),
    SECRETS_KEY: `0x${"07".repeat(32)}`,
    CLOUD_WEBHOOK_SECRET: secret("c"),
    CODE_HOST_WEBHOOK_SECRET: secret("h"),
    AGENT_EVENTS_WEBHOOK_SECRET: secret("a"),
    RELAYER_PRIVATE_KEY: relayerKey,
    ADMIN_TOKEN: ADMIN,
    PORT: String(apiPort),
    PUBLIC_BASE_URL: apiUrl,
    PONDER_PORT: String(ponderPort),
    TRUST_PROXY: "1",
  };

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

/** Calls the API as `agent` (or the operator with `ADMIN`). */
async function api(method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON envelope
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function launchAgent(
  agent: Agent,
  name: string,
  imageUrl: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const ticker = name.replace(/[^A-Z]/g, "").slice(0, 6) || "RHS";
  const r = await launch(
    apiUrl,
    launchBody(agent, imageUrl, { name, ticker, ...extra }),
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

/** Answers that reached a stand-in with a 2xx, as "METHOD path". */
const answered = (host: Parameters<OutsideWorld["wire"]["get"]>[0]) =>
  (outside.wire.get(host) ?? [])
    .filter((x) => x.status >= 200 && x.status < 300)
    .map((x) => `${x.method} ${x.path.split("?")[0]}`);

describe("go-live rehearsal in the public world", () => {
  let one: Agent;

  it("refuses a launch image or a webhook aimed inside, though a server answers there", async () => {
    one = await createAgentCli({ ...env, LAUNCHPAD_DATA_DIR: pgDir }, "Rehearsal ONE");
    const inside = [
      "127.0.0.1",
      "localhost",
      "10.44.0.1",
      "internal.example.com",
      "169.254.169.254",
      "metadata.example.com",
      "[::ffff:10.44.0.1]",
      "[::ffff:127.0.0.1]",
      "[64:ff9b::a2c:1]",
    ].map((host) => `https://${host}:${insidePort}`);
    for (const origin of inside) {
      const r = await launch(apiUrl, launchBody(one, `${origin}/agent.png`), bearer(one));
      expect({ origin, status: r.status, code: r.body.code }).toEqual({
        origin,
        status: 400,
        code: "IMAGE_URL_PRIVATE",
      });
      const hook = await api("POST", `/v2/agents/${one.agentId}/webhooks`, one.apiKey, {
        url: `${origin}/hook`,
      });
      expect({ origin, status: hook.status, error: hook.body.error }).toEqual({
        origin,
        status: 400,
        error: "validation_failed",
      });
    }
    const hooks = await api("GET", `/v2/agents/${one.agentId}/webhooks`, one.apiKey);
    expect(hooks.body.data.items ?? hooks.body.data).toHaveLength(0);
  });

  it("launches with an image from an IPv4-only host, delivers its events to receivers at a public IPv4 and a public IPv6 address, and polls the venue, the Safe service and X", async () => {
    const v4 = await startReceiver(undefined, "hooks.example.org");
    const v6 = await startReceiver(undefined, "hooks6.example.org");
    closers.push(v4.close, v6.close);
    const secrets: string[] = [];
    for (const rx of [v4, v6]) {
      const r = await api("POST", `/v2/agents/${one.agentId}/webhooks`, one.apiKey, {
        url: `${rx.origin}/hook`,
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      secrets.push(r.body.data.secret);
    }
    const perps = privateKeyToAccount(generatePrivateKey()).address;
    const wallet = await api("POST", `/v2/agents/${one.agentId}/wallets`, one.apiKey, {
      chain: "hyperliquid",
      address: perps,
      role: "perps",
    });
    expect(wallet.status, JSON.stringify(wallet.body)).toBe(201);

    const first = await launchAgent(one, "Rehearsal ONE", images.v4, { patronX: "patron_one" });
    const client = createPublicClient({ transport: http(bsc.rpcUrl) });
    expect(await client.getCode({ address: first as Hex })).toMatch(/^0x[0-9a-f]{10}/);

    // The same event reaches both receivers, each signed with its own subscription's secret.
    const sourceId = (body: string) =>
      (JSON.parse(body) as { data: { sourceEventId?: string } }).data.sourceEventId;
    const [got4] = await v4.until((r) => r.length > 0, 120_000);
    verifyStandardWebhook(secrets[0] as string, got4?.headers ?? {}, got4?.body ?? "");
    const wanted = sourceId(got4?.body ?? "{}");
    const got6 = (await v6.until((r) => r.some((x) => sourceId(x.body) === wanted), 120_000)).find(
      (x) => sourceId(x.body) === wanted,
    );
    verifyStandardWebhook(secrets[1] as string, got6?.headers ?? {}, got6?.body ?? "");

    // The pollers and the announcer reached their services by name over TLS: the perps venue
    // for the registered account, the Safe service for the treasury, X for the announcement.
    const panel = await waitFor(
      "the perps panel read from the venue",
      async () => {
        const r = await api("GET", `/v2/agents/${one.agentId}/perps`, one.apiKey);
        return r.body.data?.status === "ok" ? r.body.data : undefined;
      },
      120_000,
    );
    expect(panel.asOf).toBeTruthy();
    expect(answered("hyperliquid.example.com")).toContain("POST /info");
    await waitFor(
      "the treasury's queue read from the Safe Transaction Service",
      async () =>
        answered("safe-transaction.example.com").some((x) => x.startsWith("GET /api/")) ||
        undefined,
      120_000,
    );
    await waitFor(
      "the launch announced on X",
      async () => answered("x-api.example.com").includes("POST /2/tweets") || undefined,
      60_000,
    );
    expect(answered("steward.example.com").length).toBeGreaterThan(0);
    expect(answered("four-meme.example.com")).toContain("POST /meme-api/v1/private/token/create");
  }, 420_000);

  it("survives a database restart under the roles, and launches a second agent with an image from an IPv6-only host", async () => {
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

    const two = await createAgentCli({ ...env, LAUNCHPAD_DATA_DIR: pgDir }, "Rehearsal TWO");
    await launchAgent(two, "Rehearsal TWO", images.v6);
    for (const role of ["indexer", "worker", "api"]) expect(alive(role), roleLog(role)).toBe(true);
  }, 420_000);
});
