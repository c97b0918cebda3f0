import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { StewardApiError, StewardClient } from "@stwd/sdk";
import { pino } from "pino";
import {
  createWalletClient,
  type Hex,
  http,
  parseEther,
  verifyMessage,
  verifyTypedData,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerError } from "../../../api/policy/policy.ts";
import { DEVNET_MNEMONIC, startAnvil } from "../../../devnet/anvil.ts";
import { createStewardApp } from "../../../devnet/stand-ins/steward/server.ts";
import { classify } from "../../../jobs/launch/errors.ts";
import { viemChain } from "../../../lib/chain.ts";
import { freePort } from "../../../lib/local/net.ts";
import { createStewardClient, stewardChainRefusal } from "../../../services/steward/client.ts";
import { verifyStewardDelivery } from "../../../services/steward/webhooks.ts";

// The stand-in driven by the real Steward SDK (@stwd/sdk 0.8.1) for every call the service
// makes. The SDK cannot send `Idempotency-Key` (its request headers are fixed), so it cannot
// sign-and-broadcast against a Steward that requires the key (428, as the real one answers);
// that call is driven by our client here and checked against recorded answers in contract.test.ts.

const TENANT = "sdk-test-tenant";
const SECRET = "steward-sdk-test-secret-0123456789";
// A call to a "platform contract" (the service's policy lets the launch's calls through).
const TARGET = "0x000000000000000000000000000000000000c0de" as Hex;
const dir = mkdtempSync(join(tmpdir(), "steward-sdk-"));
const deliveries: { headers: IncomingHttpHeaders; body: string; path: string }[] = [];
let stop: (() => Promise<void>)[] = [];
let url = "";
let apiKey = "";
let rpcUrl = "";

beforeAll(async () => {
  const anvil = await startAnvil({ port: await freePort(), blockTime: 0 });
  rpcUrl = anvil.rpcUrl;
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      deliveries.push({ headers: req.headers, body, path: req.url ?? "" });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  apiKey = randomBytes(24).toString("hex");
  const app = createStewardApp({
    rpcUrl,
    chainId: 56,
    apiKey,
    tenantId: TENANT,
    webhookBaseUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    webhookSecret: SECRET,
    storePath: join(dir, "store.json"),
    masterKey: randomBytes(32),
    log: pino({ level: "silent" }),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stop = [
    () => new Promise<void>((r) => server.close(() => r())),
    () => new Promise<void>((r) => receiver.close(() => r())),
    () => anvil.stop(),
  ];
}, 60_000);
afterAll(async () => {
  for (const s of stop) await s();
  rmSync(dir, { recursive: true, force: true });
});

const sdk = () => new StewardClient({ baseUrl: url, apiKey, tenantId: TENANT });

/** A local forwarder to `target` that adds `Idempotency-Key: key` (the SDK cannot send it). */
async function forwarder(target: string, key: string): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", async () => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === "string" && k !== "host" && k !== "content-length") headers.set(k, v);
      headers.set("idempotency-key", key);
      const r = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === "GET" ? undefined : body,
      });
      res.writeHead(r.status, { "content-type": "application/json" }).end(await r.text());
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  stop.push(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a StewardApiError");
    },
    (e: unknown) => {
      expect(e).toBeInstanceOf(StewardApiError);
      return e as StewardApiError;
    },
  );

describe("the stand-in, driven by @stwd/sdk", () => {
  let agentId = "";
  let address = "" as Hex;

  it("creates an agent under an id of its own and reads it back; our id is not its key", async () => {
    const created = await sdk().createWallet("launchpad-agent-1", "Agent One", "launchpad-agent-1");
    expect(created.id).toMatch(/^agt_/);
    expect(created).toMatchObject({
      tenantId: TENANT,
      name: "Agent One",
      platformId: "launchpad-agent-1",
    });
    expect(created.walletAddress).toMatch(/^0x[0-9a-f]{40}$/);
    agentId = created.id;
    address = created.walletAddress as Hex;
    expect(await sdk().getAgent(agentId)).toMatchObject({ id: agentId, walletAddress: address });
    expect((await failure(sdk().getAgent("launchpad-agent-1"))).status).toBe(404);
    expect((await sdk().getAddresses(agentId)).addresses).toEqual([
      { chainFamily: "evm", address },
    ]);
    // Steward's validation: a name is required, an id must be 1-128 of [A-Za-z0-9_.:-].
    expect((await failure(sdk().createWallet("bad id!", "x"))).status).toBe(400);
    expect((await failure(sdk().createWallet("ok-id", ""))).status).toBe(400);
  });

  it("refuses a wrong tenant key or tenant id with 403, as Steward does", async () => {
    const wrongKey = new StewardClient({
      baseUrl: url,
      apiKey: "nope".repeat(8),
      tenantId: TENANT,
    });
    const wrongTenant = new StewardClient({ baseUrl: url, apiKey, tenantId: "other" });
    expect((await failure(wrongKey.getAgent(agentId))).status).toBe(403);
    expect((await failure(wrongTenant.getAgent(agentId))).status).toBe(403);
  });

  it("signs a message with the agent's key", async () => {
    const { signature } = await sdk().signMessage(agentId, "four.meme login nonce 42");
    expect(
      await verifyMessage({
        address,
        message: "four.meme login nonce 42",
        signature: signature as Hex,
      }),
    ).toBe(true);
    expect((await failure(sdk().signMessage(agentId, ""))).status).toBe(400);
  });

  it("sign-and-broadcast without Idempotency-Key (all the SDK can send) is 428", async () => {
    const e = await failure(
      sdk().signTransaction(agentId, { to: TARGET, value: "1", chainId: 56 }),
    );
    expect(e.status).toBe(428);
    expect(e.message).toContain("Idempotency-Key");
  });

  it("signs and broadcasts once per Idempotency-Key (our client; the SDK cannot send the key)", async () => {
    const funder = createWalletClient({
      account: mnemonicToAccount(DEVNET_MNEMONIC),
      chain: viemChain({ id: 56, name: "bsc", rpcUrls: [rpcUrl] }),
      transport: http(rpcUrl),
    });
    await funder.sendTransaction({ to: address, value: parseEther("1") });
    const ours = createStewardClient({ url, apiKey, tenantId: TENANT, timeoutMs: 10_000 });
    const tx = { to: TARGET, value: "7", data: "0x01020304" as Hex, idempotencyKey: "call-0001" };
    const first = await ours.sendTransaction(agentId, tx);
    const again = await ours.sendTransaction(agentId, tx);
    expect(again).toMatchObject({ txHash: first.txHash, txId: first.txId });
    // The same key for another payload is Steward's 409, nothing signed.
    await expect(ours.sendTransaction(agentId, { ...tx, value: "8" })).rejects.toMatchObject({
      kind: "rejected",
      status: 409,
    });
    const record = await fetch(`${url}/vault/${agentId}/transactions/${first.txId}`, {
      headers: { "x-steward-key": apiKey, "x-steward-tenant": TENANT },
    }).then((r) => r.json());
    expect(record).toMatchObject({
      ok: true,
      data: { id: first.txId, status: "broadcast", txHash: first.txHash },
    });
  });

  it("a transaction the chain refuses (no BNB for gas) is Steward's 502, then its 409; our client maps both", async () => {
    const broke = await sdk().createWallet("launchpad-broke", "Broke", "launchpad-broke");
    // The SDK cannot send Idempotency-Key: a forwarder adds it, as a gateway in front would.
    const viaKey = async (key: string) =>
      new StewardClient({ baseUrl: await forwarder(url, key), apiKey, tenantId: TENANT });
    const tx = { to: TARGET, value: "0", chainId: 56 };
    const first = await failure((await viaKey("sdk-broke-0001")).signTransaction(broke.id, tx));
    // Steward's class of the node's error, not its text (packages/api/src/services/rpc-error.ts).
    expect({ status: first.status, message: first.message }).toEqual({
      status: 502,
      message: "Insufficient funds for transaction",
    });
    const again = await failure((await viaKey("sdk-broke-0001")).signTransaction(broke.id, tx));
    expect(again.status).toBe(409);
    expect(again.message).toContain("already recorded");
    const { txId } = again.data as { txId: string };
    expect(again.data).toMatchObject({ status: "failed" });
    const record = await fetch(`${url}/vault/${broke.id}/transactions/${txId}`, {
      headers: { "x-steward-key": apiKey, "x-steward-tenant": TENANT },
    }).then((r) => r.json());
    expect(record).toMatchObject({ ok: true, data: { id: txId, status: "failed", txHash: null } });

    // Our client: a final answer, not retried; an order's 409, a launch step's LAUNCHPAD_ERROR.
    const ours = createStewardClient({ url, apiKey, tenantId: TENANT, timeoutMs: 10_000 });
    const send = (key: string, gas?: string) =>
      ours.sendTransaction(broke.id, { to: TARGET, idempotencyKey: key, ...(gas ? { gas } : {}) });
    const refused = await send("broke-0001").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(stewardChainRefusal(refused)).toMatchObject({ reason: "insufficient_funds" });
    expect(signerError(refused)).toMatchObject({ code: "conflict", status: 409 });
    const step = classify(refused, "identitySent");
    expect(step.code).toBe("LAUNCHPAD_ERROR");
    expect(step.message).toContain("signer_chain_refused");
    expect(step.message).toContain("Insufficient funds for transaction");
    const repeat = await send("broke-0001").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(stewardChainRefusal(repeat)).toMatchObject({ reason: "failed" });
    expect(classify(repeat, "identitySent").code).toBe("LAUNCHPAD_ERROR");
    // With its gas named nothing is estimated: the signed broadcast the chain refuses is
    // Steward's 202 outcome_unknown (reconcile by hash), never a 500 to retry.
    const unknown = await send("broke-0002", "100000");
    expect(unknown).toMatchObject({ outcome: "unknown", txHash: expect.stringMatching(/^0x/) });
    expect(await send("broke-0002", "100000")).toEqual(unknown);
  });

  it("gets and replaces the agent's policy rules", async () => {
    expect(await sdk().getPolicies(agentId)).toEqual([]);
    const rules = [
      {
        id: "cap",
        type: "spending-limit" as const,
        enabled: true,
        config: { maxPerTx: "1000000000000000000" },
      },
      {
        id: "to",
        type: "approved-addresses" as const,
        enabled: true,
        config: { addresses: [TARGET] },
      },
    ];
    expect(await sdk().setPolicies(agentId, rules)).toEqual(rules);
    expect(await sdk().getPolicies(agentId)).toEqual(rules);
    const bad = [{ id: "x", type: "no-such-rule", enabled: true, config: {} }];
    expect((await failure(sdk().setPolicies(agentId, bad as never))).status).toBe(400);
    expect(await sdk().getPolicies(agentId)).toEqual(rules);
  });

  it("signs typed data only under a typed-data rule that allows its domain (Hyperliquid's)", async () => {
    // Hyperliquid's L1 action signature, as our venue orders have Steward sign it.
    const typed = {
      domain: {
        name: "Exchange",
        version: "1",
        chainId: 1337,
        verifyingContract: "0x0000000000000000000000000000000000000000" as Hex,
      },
      types: {
        Agent: [
          { name: "source", type: "string" },
          { name: "connectionId", type: "bytes32" },
        ],
      },
      primaryType: "Agent",
      value: { source: "a", connectionId: `0x${"11".repeat(32)}` },
    };
    const before = await sdk().getPolicies(agentId);
    // No typed-data rule: Steward signs no typed data.
    await sdk().setPolicies(agentId, []);
    expect((await failure(sdk().signTypedData(agentId, typed))).status).toBe(403);
    // @stwd/sdk 0.8.1's PolicyType predates the server's `typed-data` rule; the call is the same.
    const typedDataRule = {
      id: "hl",
      type: "typed-data",
      enabled: true,
      config: { allowedDomainNames: ["Exchange"], allowedChainIds: [1337] },
    };
    await sdk().setPolicies(agentId, [typedDataRule as never]);
    const { signature } = await sdk().signTypedData(agentId, typed);
    expect(
      await verifyTypedData({
        address,
        domain: typed.domain,
        types: typed.types,
        primaryType: "Agent",
        message: typed.value,
        signature: signature as Hex,
      }),
    ).toBe(true);
    // Another domain is refused with Steward's policy refusal.
    const other = { ...typed, domain: { ...typed.domain, name: "Other" } };
    expect((await failure(sdk().signTypedData(agentId, other))).status).toBe(403);
    await sdk().setPolicies(agentId, before);
  });

  it("registers a webhook (secret shown once) and delivers in Steward's own signed format", async () => {
    const hook = await sdk().createWebhook({
      url: "https://example.com/hook",
      events: ["tx.signed"],
    });
    expect(hook.secret).toMatch(/^[0-9a-f]{64}$/);
    const listed = await sdk().listWebhooks();
    expect(listed.find((w) => w.id === hook.id)).toMatchObject({
      url: "https://example.com/hook",
      events: ["tx.signed"],
    });
    expect(listed.every((w) => w.secret === undefined)).toBe(true);
    const of = (type: string) => deliveries.find((d) => d.headers["x-steward-event"] === type);
    // Deliveries leave after the answer (from the outbox): wait for both, bounded.
    for (let i = 0; i < 100 && !(of("tx.signed") && of("transaction.broadcasted")); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const signed = of("tx.signed");
    const sent = of("transaction.broadcasted");
    expect(signed?.path).toBe("/v2/webhooks/steward/policy");
    expect(sent?.path).toBe("/v2/webhooks/steward/sign");
    for (const d of [signed, sent]) {
      if (!d) throw new Error("delivery missing");
      const header = (n: string) => d.headers[n] as string | undefined;
      expect(verifyStewardDelivery({ secret: SECRET, body: d.body, header })).toMatchObject({
        ok: true,
      });
      expect(JSON.parse(d.body)).toMatchObject({
        tenantId: TENANT,
        agentId,
        deliveryId: header("x-steward-delivery-id"),
      });
    }
  });
});
