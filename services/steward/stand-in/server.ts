import { randomUUID, timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import { type Chain, createPublicClient, type Hex, http, keccak256, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { viemChain } from "../../../lib/chain.ts";
import type { Logger } from "../../../lib/logger.ts";
import { keyedMutex } from "../../../lib/mutex.ts";
import type { Intent } from "../../../lib/policy/intent.ts";
import { decodeBscTransaction } from "../../../lib/policy/spot.ts";
import { STEWARD_LIMITS } from "../../limits.ts";
import type { SendTransactionBody, StewardWebhook } from "../protocol.ts";
import { signWebhook } from "../protocol.ts";
import { type Decision, decide, ledgerEntry } from "./policy.ts";
import { registerPolicyRoutes } from "./routes.ts";
import { bnbUsd, type PerpsVenue, type SpotChain } from "./snapshot.ts";
import { type Outgoing, StewardStore } from "./store.ts";

export type StewardStandInParameters = {
  rpcUrl: string;
  chainId: number;
  apiKey: string;
  /** Our API's base URL: webhooks go to `${webhookBaseUrl}/v2/webhooks/steward/<kind>`. */
  webhookBaseUrl: string;
  webhookSecret: string;
  storePath: string;
  masterKey: Buffer;
  log: Logger;
  /** The spot DEX, its WBNB, the BNB/USD feed and the platform's own contracts (the launch). */
  contracts?: { router: Hex; wbnb: Hex; bnbUsdFeed: Hex; platform: Hex[] };
  /** The perps venue; absent: perps actions are refused (503) and count no positions. */
  perps?: PerpsVenue;
  /** The clock of the policy (allowedUtcHours, UTC days); tests inject one. */
  now?: () => Date;
  /** Tests only: runs after a call has read its policy version, before it decides. */
  afterPolicyRead?: (walletId: string) => Promise<void>;
};

/**
 * The local stand-in of the steward signer: provisions wallets (keys sealed with AES-256-GCM),
 * decodes every signing call into what it does, runs the trading-policy chain against the
 * version current when the call started, signs and broadcasts transactions exactly once per
 * idempotency key, signs perps venue actions, and reports each decision as a signed
 * webhook kept in an outbox until the API acknowledges it. Calls of one wallet run one at a
 * time from snapshot to signature, so two calls cannot both spend the same budget.
 *
 * @example
 * const app = createStewardApp({ rpcUrl, chainId: 56, apiKey, webhookBaseUrl, webhookSecret, storePath, masterKey, log });
 */
export function createStewardApp(p: StewardStandInParameters) {
  const store = new StewardStore(p.storePath, p.masterKey, p.log);
  const chain: Chain = viemChain({ id: p.chainId, name: "bsc", rpcUrls: [p.rpcUrl] });
  const client = createPublicClient({ chain, transport: http(p.rpcUrl) }) as PublicClient;
  const now = p.now ?? (() => new Date());
  const spot: SpotChain | undefined = p.contracts && {
    client,
    router: p.contracts.router,
    wbnb: p.contracts.wbnb,
    bnbUsdFeed: p.contracts.bnbUsdFeed,
  };
  const lock = keyedMutex();
  const app = new Hono();

  const send = async (o: Outgoing) => {
    const body = JSON.stringify(o.body);
    const res = await fetch(`${p.webhookBaseUrl}/v2/webhooks/steward/${o.kind}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-webhook-signature": signWebhook(p.webhookSecret, body),
      },
      body,
      signal: AbortSignal.timeout(STEWARD_LIMITS.webhookTimeoutMs),
    });
    await res.body?.cancel();
    // 4xx other than 429 will never succeed: drop it rather than block the outbox.
    if (res.ok || (res.status >= 400 && res.status < 500 && res.status !== 429)) {
      if (!res.ok) p.log.warn({ status: res.status, kind: o.kind }, "webhook refused, dropped");
      store.delivered(o.body.sourceEventId);
    }
  };
  // Stored first, sent after: a slow or down receiver never blocks a signature, and a crash
  // or a failed delivery is retried from the outbox (same sourceEventId: stored once).
  const deliver = (o: Outgoing) =>
    send(o).catch((error: unknown) => p.log.warn({ err: error }, "webhook not delivered yet"));
  const retry = setInterval(() => {
    for (const o of store.outbox()) void deliver(o);
  }, STEWARD_LIMITS.outboxRetryMs);
  retry.unref();

  const webhook = (
    kind: "policy" | "sign",
    w: { walletId: string; agentId: string },
    eventType: string,
    data: Record<string, unknown>,
    sourceEventId: string = randomUUID(),
  ): Outgoing => {
    const body: StewardWebhook = {
      sourceEventId,
      eventType,
      occurredAt: now().toISOString(),
      agentId: w.agentId,
      walletId: w.walletId,
      data,
    };
    return { kind, body };
  };
  const decisionHook = (w: { walletId: string; agentId: string }, d: Decision) =>
    webhook("policy", w, d.eventType, d.data, `policy:${d.callId}`);

  app.get("/health", (c) => c.json({ ok: true, service: "steward-stand-in" }));
  app.use("/v1/*", async (c, next) => {
    const got = Buffer.from((c.req.header("authorization") ?? "").replace(/^Bearer /, ""));
    const want = Buffer.from(p.apiKey);
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      return c.json({ error: "unauthorized" }, 401);
    }
    await next();
  });

  app.post("/v1/wallets", async (c) => {
    const { agentId } = await c.req.json<{ agentId?: string }>().catch(() => ({ agentId: "" }));
    if (!agentId || typeof agentId !== "string") return c.json({ error: "agentId required" }, 400);
    return lock(`agent:${agentId}`, async () => {
      const existing = store.walletOfAgent(agentId);
      if (existing)
        return c.json({ walletId: existing.walletId, agentId, address: existing.address });
      const key = generatePrivateKey();
      const address = privateKeyToAccount(key).address.toLowerCase() as Hex;
      const walletId = randomUUID();
      store.addWallet({ walletId, agentId, address, key: store.seal(key, walletId) });
      p.log.info({ walletId, agentId, address }, "wallet provisioned");
      return c.json({ walletId, agentId, address }, 201);
    });
  });

  app.get("/v1/wallets/:id", (c) => {
    const w = store.wallet(c.req.param("id"));
    if (!w) return c.json({ error: "not_found" }, 404);
    return c.json({ walletId: w.walletId, agentId: w.agentId, address: w.address });
  });

  app.post("/v1/wallets/:id/transactions", async (c) => {
    const w = store.wallet(c.req.param("id"));
    if (!w) return c.json({ error: "not_found" }, 404);
    const body = await c.req.json<SendTransactionBody>().catch(() => ({}) as SendTransactionBody);
    if (
      typeof body.idempotencyKey !== "string" ||
      !body.idempotencyKey ||
      !/^0x[0-9a-fA-F]{40}$/.test(body.to ?? "") ||
      (body.value !== undefined && !/^\d{1,78}$/.test(body.value)) ||
      (body.data !== undefined && !/^0x([0-9a-fA-F]{2})*$/.test(body.data))
    ) {
      return c.json({ error: "to, idempotencyKey, value (wei) or data (hex) malformed" }, 400);
    }
    const key = `${w.walletId}:${body.idempotencyKey}`;
    // The version current when the call started decides it, whatever is saved meanwhile.
    const policy = store.policy(w.walletId);
    if (!policy) return c.json({ error: "not_found" }, 404);
    await p.afterPolicyRead?.(w.walletId);
    return lock(`wallet:${w.walletId}`, async () => {
      const known = store.tx(key);
      if (known) {
        // Signed once: re-broadcast (a no-op if it is already in the pool or mined).
        await client.sendRawTransaction({ serializedTransaction: known.raw }).catch(() => {});
        return c.json({ txHash: known.hash, policyId: policy.policyId });
      }
      const value = BigInt(body.value ?? "0");
      const at = now();
      let intent: Intent;
      let bnbPrice: Awaited<ReturnType<typeof bnbUsd>> | undefined;
      try {
        const toRouter = spot && body.to.toLowerCase() === spot.router;
        bnbPrice = toRouter && spot ? await bnbUsd(spot) : { answer: 0n, decimals: 8 };
        intent = decodeBscTransaction(
          { to: body.to, value, data: body.data },
          {
            wallet: w.address,
            router: spot?.router ?? "",
            wbnb: spot?.wbnb ?? "",
            platform: p.contracts?.platform ?? [],
            bnbUsd: bnbPrice,
          },
        );
      } catch (error) {
        intent = {
          kind: "unknown",
          manual: false,
          code: "state_unavailable",
          reason: `the BNB price could not be read: ${(error as Error).message.split("\n")[0]}`,
          summary: { to: body.to.toLowerCase() },
        };
      }
      const d = await decide({
        policy,
        intent,
        now: at,
        wallet: w.address,
        ledger: store.ledger(w.walletId),
        spot,
        perps: p.perps,
        preread: { bnbPrice },
      });
      if (d.denial) {
        const hook = decisionHook(w, d);
        store.record(w.walletId, { webhook: hook });
        void deliver(hook);
        return c.json(d.denial, 403);
      }
      const account = privateKeyToAccount(store.unseal(w));
      const [nonce, gasPrice] = await Promise.all([
        client.getTransactionCount({ address: account.address, blockTag: "pending" }),
        client.getGasPrice(),
      ]);
      let gas: bigint;
      try {
        gas = body.gas
          ? BigInt(body.gas)
          : ((await client.estimateGas({
              account: account.address,
              to: body.to,
              value,
              data: body.data,
            })) *
              12n) /
            10n;
      } catch (error) {
        return c.json(
          { error: "execution_reverted", reason: (error as Error).message.split("\n")[0] },
          422,
        );
      }
      const raw = await account.signTransaction({
        type: "legacy",
        chainId: p.chainId,
        nonce,
        to: body.to,
        value,
        data: body.data,
        gas,
        gasPrice,
      });
      const hash = keccak256(raw);
      const hook = decisionHook(w, { ...d, data: { ...d.data, txHash: hash } });
      // One write before broadcasting: a crash now re-broadcasts, never re-signs, and the
      // budget and the event are kept with the signature.
      store.record(w.walletId, {
        tx: [key, { hash, raw }],
        entry: ledgerEntry(d, hash),
        webhook: hook,
      });
      void deliver(hook);
      await client.sendRawTransaction({ serializedTransaction: raw });
      const sent = webhook("sign", w, "transaction.sent", { txHash: hash, to: body.to });
      store.record(w.walletId, { webhook: sent });
      void deliver(sent);
      return c.json({ txHash: hash, policyId: policy.policyId, version: policy.version });
    });
  });

  app.post("/v1/wallets/:id/sign-message", async (c) => {
    const w = store.wallet(c.req.param("id"));
    if (!w) return c.json({ error: "not_found" }, 404);
    const { message } = await c.req.json<{ message?: string }>().catch(() => ({ message: 0 }));
    if (typeof message !== "string") return c.json({ error: "message required" }, 400);
    const policy = store.policy(w.walletId);
    if (!policy) return c.json({ error: "not_found" }, 404);
    const d = await decide({
      policy,
      intent: { kind: "message", summary: { length: String(message.length) } },
      now: now(),
      wallet: w.address,
      ledger: [],
    });
    const hook = decisionHook(w, d);
    store.record(w.walletId, { webhook: hook });
    void deliver(hook);
    if (d.denial) return c.json(d.denial, 403);
    const signature = await privateKeyToAccount(store.unseal(w)).signMessage({ message });
    return c.json({ signature, policyId: policy.policyId });
  });

  registerPolicyRoutes(app, {
    store,
    lock,
    now,
    perps: p.perps,
    afterPolicyRead: p.afterPolicyRead,
    onDecision: (w, d, extra) => {
      const hook = decisionHook(w, { ...d, data: { ...d.data, ...extra } });
      return { hook, deliver: () => void deliver(hook) };
    },
  });

  app.onError((error, c) => {
    p.log.error({ err: error }, "steward stand-in error");
    return c.json({ error: "internal", reason: error.message.split("\n")[0] }, 500);
  });
  return app;
}
