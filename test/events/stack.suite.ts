import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  parseEther,
  zeroAddress,
} from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { safeL2Abi } from "../../abis/SafeL2.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { readDeploymentRecord } from "../../devnet/record.ts";
import { signWebhookBody } from "../../lib/webhooks/inbound/signature.ts";
import { runCli, type Stack, waitFor } from "../helpers/cli.ts";
import { bearer, createAgentCli, launch, launchBody, nextIp, stackSql } from "../helpers/launch.ts";
import { scrapeMetrics, sumOf } from "../helpers/metrics.ts";
import { tradeBurst } from "../helpers/scenario-burst.ts";
import { sharedStack } from "../helpers/shared-stack.ts";
import { WsClient } from "../ws/client.ts";

// The "done when" on `launchpad start`: an agent launched through the API, a signed
// pr.merged sent as a user would (secret from `devnet info --json`), a trade on the agent's
// token, and the signer's own policy webhooks: all on GET /v2/agents/{token}/events.

let stack: Stack | undefined;
let env: Record<string, string>;
let sql: ReturnType<typeof stackSql>;
let token: string;
let treasury: `0x${string}`;
let secrets: { steward: string; cloud: string; codeHost: string; agentEvents: string };

beforeAll(async () => {
  ({ stack, env } = await sharedStack());
  sql = stackSql(env.LAUNCHPAD_DATA_DIR as string);
  const info = JSON.parse((await runCli(["devnet", "info", "--json"], env)).stdout);
  secrets = info.webhookSecrets;
  const a = await createAgentCli(env, "feed-agent");
  const r = await launch(stack.apiUrl, launchBody(a, info.sampleImageUrl), bearer(a));
  expect(r.status).toBe(200);
  token = r.body.data.tokenAddress;
  treasury = r.body.data.treasuryAddress;
}, 400_000);

afterAll(async () => {
  await sql?.end({ timeout: 1 });
});

async function events(query: string) {
  const res = await fetch(`${stack?.apiUrl}/v2/agents/${token}/events?${query}`, {
    headers: { "x-forwarded-for": nextIp() },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { items: Record<string, unknown>[] } }).data.items;
}

async function send(body: string, header: string) {
  return fetch(`${stack?.apiUrl}/v2/webhooks/code-host`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-webhook-signature": header },
    body,
  });
}

it("the worker schedules the hourly pruning of the inbox, the delivery log and old launch keys", async () => {
  // Each once across the workers (pg-boss cron); what each deletes is tested beside its function.
  const rows = await sql<{ name: string; cron: string }[]>`
    select name, cron from jobs.schedule where name like '%prune' order by name`;
  expect(rows.map((r) => `${r.name} ${r.cron}`)).toEqual([
    "events-inbox-prune 41 * * * *",
    "launch-idempotency-prune 23 * * * *",
    "outbound-prune 17 * * * *",
  ]);
});

it("devnet info lists the four local webhook secrets", () => {
  expect(Object.keys(secrets).sort()).toEqual(["agentEvents", "cloud", "codeHost", "steward"]);
  for (const s of Object.values(secrets)) expect(s.length).toBeGreaterThanOrEqual(32);
  // Generated once into the data directory, owner-only.
  const file = join(env.LAUNCHPAD_DATA_DIR as string, "secrets", "webhooks.json");
  expect(JSON.parse(readFileSync(file, "utf8")).codeHost).toBe(secrets.codeHost);
});

it("a signed pr.merged shows on the feed with its text; bad signature, stale time and bad body change nothing", async () => {
  const body = JSON.stringify({
    sourceEventId: "gh-delivery-1",
    eventType: "pr.merged",
    occurredAt: new Date().toISOString(),
    agentId: token,
    data: {
      repo: "acme/agent",
      number: 42,
      title: "Add a cache",
      url: "https://git.example/pr/42",
    },
  });
  const [before] = await sql`select count(*)::int as n from app.webhook_inbox`;
  const wrong = signWebhookBody({ secrets: ["not-the-secret-0123456789"], body });
  const stale = signWebhookBody({ secrets: [secrets.codeHost], body, t: Date.now() - 6 * 60_000 });
  const badBody = body.replace('"number":42', '"number":"42"');
  expect((await send(body, wrong)).status).toBe(401);
  expect((await send(body, stale)).status).toBe(401);
  expect(
    (await send(badBody, signWebhookBody({ secrets: [secrets.codeHost], body: badBody }))).status,
  ).toBe(400);
  const [after] = await sql`select count(*)::int as n from app.webhook_inbox`;
  expect(after?.n).toBe(before?.n);

  const sentAt = Date.now();
  expect((await send(body, signWebhookBody({ secrets: [secrets.codeHost], body }))).status).toBe(
    200,
  );
  const item = await waitFor(
    "the pr.merged event",
    async () => (await events("eventType=pr.merged"))[0],
    30_000,
  );
  console.log(`pr.merged readable on /events ${Date.now() - sentAt} ms after it was sent`);
  expect(item).toMatchObject({
    source: "code-host",
    category: "apps",
    text: "Merged PR #42 in acme/agent: Add a cache",
  });
  expect((await events("eventType=pr.merged")).length).toBe(1);
});

it("the launch, the signer's policy webhooks and a trade on the token are in the same feed", async () => {
  const record = readDeploymentRecord(env.LAUNCHPAD_DATA_DIR as string);
  if (!record) throw new Error("no deployment record");
  await tradeBurst({
    rpcUrl: `http://127.0.0.1:${env.DEVNET_PORT}`,
    record,
    seed: 21,
    curveTokens: [token as `0x${string}`],
    count: 1,
  });
  const trade = await waitFor(
    "a trade event",
    async () => (await events("source=evm-indexer:bsc&category=trading"))[0],
    60_000,
  );
  expect(trade).toMatchObject({ eventType: "trade.buy", category: "trading" });
  expect(String(trade.sourceEventId)).toMatch(/^56:0x[0-9a-f]{64}:\d+$/);
  const types = new Set((await events("limit=100")).map((i) => i.eventType));
  for (const t of ["launch.created", "identity.registered", "policy.applied", "trade.buy"]) {
    expect(types, t).toContain(t);
  }
});

it("BNB into the treasury and a Safe execution sending BNB out are in the feed", async () => {
  const rpc = `http://127.0.0.1:${env.DEVNET_PORT}`;
  const chain = defineChain({
    id: 56,
    name: "devnet",
    nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
    rpcUrls: { default: { http: [rpc] } },
  });
  const client = createPublicClient({ chain, transport: http(rpc) });
  const accounts = devnetAccounts();
  const payer = accounts.external[0] as (typeof accounts.external)[number];
  const payee = accounts.external[1]?.address as `0x${string}`;
  const wallet = (account: typeof payer) =>
    createWalletClient({ account, chain, transport: http(rpc) });
  const paid = await wallet(payer).sendTransaction({ to: treasury, value: parseEther("0.5") });
  await client.waitForTransactionReceipt({ hash: paid });
  // Locally the platform account co-owns every treasury with threshold 1: it alone executes.
  const nonce = await client.readContract({
    address: treasury,
    abi: safeL2Abi,
    functionName: "nonce",
  });
  const tx = [payee, parseEther("0.1"), "0x", 0, 0n, 0n, 0n, zeroAddress, zeroAddress] as const;
  const hash = await client.readContract({
    address: treasury,
    abi: safeL2Abi,
    functionName: "getTransactionHash",
    args: [...tx, nonce],
  });
  const signature = await accounts.platform.sign({ hash });
  const exec = await wallet(accounts.platform).writeContract({
    address: treasury,
    abi: safeL2Abi,
    functionName: "execTransaction",
    args: [...tx, signature],
  });
  await client.waitForTransactionReceipt({ hash: exec });
  const moves = await waitFor(
    "the BNB moves",
    async () => {
      const items = await events("category=treasury&limit=100");
      const kinds = new Set(items.map((i) => i.eventType));
      return ["wallet.bnb_in", "wallet.bnb_out", "safe.tx.executed"].every((k) => kinds.has(k))
        ? items
        : undefined;
    },
    60_000,
  );
  expect(moves.find((i) => i.eventType === "wallet.bnb_in")).toMatchObject({
    source: "evm-indexer:bsc",
    text: `Treasury received 0.5 BNB from ${payer.address.slice(0, 6).toLowerCase()}…${payer.address.slice(-4).toLowerCase()}`,
  });
  expect(moves.find((i) => i.eventType === "wallet.bnb_out")).toMatchObject({
    text: `Treasury sent 0.1 BNB to ${payee.slice(0, 6).toLowerCase()}…${payee.slice(-4).toLowerCase()}`,
  });
});

it("both roles' /metrics count the launch, the webhooks and a WebSocket subscription", async () => {
  const apiBefore = await scrapeMetrics(`${stack?.apiUrl}/metrics`);
  const ws = await WsClient.open(`ws://127.0.0.1:${env.PORT}/ws`);
  try {
    ws.send({ type: "subscribe", channel: "agent", id: token });
    await ws.waitFor((m) => m.type === "subscribed", "the agent subscription");
    const body = JSON.stringify({
      sourceEventId: "gh-delivery-metrics",
      eventType: "pr.merged",
      occurredAt: new Date().toISOString(),
      agentId: token,
      data: { repo: "acme/agent", number: 43, title: "Count it", url: "https://git.example/pr/43" },
    });
    expect((await send(body, signWebhookBody({ secrets: [secrets.codeHost], body }))).status).toBe(
      200,
    );
    await ws.waitFor((m) => m.type === "event", "the pr.merged on the socket", 30_000);
    const api = await scrapeMetrics(`${stack?.apiUrl}/metrics`);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sumOf(api, name, labels) - sumOf(apiBefore, name, labels);
    const launches = { method: "POST", route: "/v2/agents/launch", status: "200" };
    expect(sumOf(api, "launchpad_http_requests_total", launches)).toBeGreaterThanOrEqual(1);
    expect(sumOf(api, "launchpad_http_request_duration_seconds_count", launches)).toBeGreaterThan(
      0,
    );
    expect(
      moved("launchpad_webhooks_inbound_total", { source: "code-host", outcome: "accepted" }),
    ).toBe(1);
    // The earlier test's bad signatures, stale time and bad body.
    expect(
      sumOf(api, "launchpad_webhooks_inbound_total", { outcome: "signature" }),
    ).toBeGreaterThan(0);
    expect(sumOf(api, "launchpad_webhooks_inbound_total", { outcome: "invalid" })).toBeGreaterThan(
      0,
    );
    expect(moved("launchpad_ws_sockets")).toBe(1);
    expect(moved("launchpad_ws_subscriptions", { channel: "agent" })).toBe(1);
    expect(moved("launchpad_ws_messages_total", { channel: "agent" })).toBeGreaterThanOrEqual(1);
    expect(sumOf(api, "launchpad_indexer_block", { chain: "bsc" })).toBeGreaterThan(0);

    const worker = await scrapeMetrics(`http://127.0.0.1:${env.WORKER_METRICS_PORT}/metrics`);
    for (const step of ["wallet", "create-mined"]) {
      expect(
        sumOf(worker, "launchpad_saga_step_duration_seconds_count", { step }),
        step,
      ).toBeGreaterThan(0);
    }
    const saga = { queue: "launch-saga", outcome: "ok" };
    expect(sumOf(worker, "launchpad_job_duration_seconds_count", saga)).toBeGreaterThanOrEqual(1);
    expect(
      sumOf(worker, "launchpad_job_wait_seconds_count", { queue: "launch-saga" }),
    ).toBeGreaterThanOrEqual(1);
    expect(worker.some((s) => s.name === "launchpad_job_queue_depth")).toBe(true);
    expect(sumOf(worker, "launchpad_outbound_dead_subscriptions")).toBe(0);
    expect(sumOf(worker, "process_cpu_seconds_total")).toBeGreaterThan(0);
  } finally {
    ws.ws.close();
  }
});
