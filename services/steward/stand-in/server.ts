import { randomUUID, timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import { type Chain, createPublicClient, type Hex, http, keccak256, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { viemChain } from "../../../lib/chain.ts";
import type { Logger } from "../../../lib/logger.ts";
import { keyedMutex } from "../../../lib/mutex.ts";
import type { Policy, PolicyRules, SendTransactionBody, StewardWebhook } from "../protocol.ts";
import { signWebhook } from "../protocol.ts";
import { evaluatePolicy, type SigningRequest } from "./policy.ts";
import { StewardStore } from "./store.ts";

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
};

/**
 * The local stand-in of the steward signer: provisions wallets (keys sealed with AES-256-GCM),
 * runs the policy chain before every signature, signs and broadcasts transactions exactly
 * once per idempotency key, and reports policy.applied / policy.denied by signed webhooks.
 *
 * @example
 * const app = createStewardApp({ rpcUrl, chainId: 56, apiKey, webhookBaseUrl, webhookSecret, storePath, masterKey, log });
 */
export function createStewardApp(p: StewardStandInParameters) {
  const store = new StewardStore(p.storePath, p.masterKey);
  const chain: Chain = viemChain({ id: p.chainId, name: "bsc", rpcUrls: [p.rpcUrl] });
  const client = createPublicClient({ chain, transport: http(p.rpcUrl) }) as PublicClient;
  const lock = keyedMutex();
  const app = new Hono();

  // Webhooks are fire and forget: a slow receiver never blocks a signature.
  const deliver = (
    kind: "policy" | "sign",
    e: Omit<StewardWebhook, "sourceEventId" | "occurredAt">,
  ) => {
    const body = JSON.stringify({
      ...e,
      sourceEventId: randomUUID(),
      occurredAt: new Date().toISOString(),
    });
    fetch(`${p.webhookBaseUrl}/v2/webhooks/steward/${kind}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-webhook-signature": signWebhook(p.webhookSecret, body),
      },
      body,
      signal: AbortSignal.timeout(5_000),
    }).catch((error: unknown) => p.log.warn({ err: error, kind }, "webhook not delivered"));
  };

  /** Runs the chain against the policy version current when the call started. */
  const check = (walletId: string, agentId: string, r: SigningRequest) => {
    const policy = store.policy(walletId) as Policy;
    const verdict = evaluatePolicy(r, policy.rules);
    const data = {
      policyId: policy.policyId,
      version: policy.version,
      kind: r.kind,
      ...(r.kind === "transaction" ? { to: r.to, value: r.value.toString() } : {}),
      ...(verdict.ok ? {} : { evaluator: verdict.evaluator, reason: verdict.reason }),
    };
    deliver("policy", {
      eventType: verdict.ok ? "policy.applied" : "policy.denied",
      agentId,
      walletId,
      data,
    });
    // The 403 body both signing routes answer with when an evaluator refuses.
    const denial = verdict.ok
      ? undefined
      : {
          error: "policy_denied",
          evaluator: verdict.evaluator,
          reason: verdict.reason,
          policyId: policy.policyId,
        };
    return { policy, denial };
  };

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
    const { agentId } = await c.req.json<{ agentId?: string }>();
    if (!agentId || typeof agentId !== "string") return c.json({ error: "agentId required" }, 400);
    return lock(`agent:${agentId}`, async () => {
      const existing = store.walletOfAgent(agentId);
      if (existing)
        return c.json({ walletId: existing.walletId, agentId, address: existing.address });
      const key = generatePrivateKey();
      const address = privateKeyToAccount(key).address.toLowerCase() as Hex;
      const walletId = randomUUID();
      store.addWallet(
        { walletId, agentId, address, key: store.seal(key) },
        { policyId: randomUUID(), version: 1, rules: {}, createdAt: new Date().toISOString() },
      );
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
    const body = await c.req.json<SendTransactionBody>();
    if (!body.idempotencyKey || !/^0x[0-9a-fA-F]{40}$/.test(body.to ?? "")) {
      return c.json({ error: "to and idempotencyKey required" }, 400);
    }
    const key = `${w.walletId}:${body.idempotencyKey}`;
    return lock(`wallet:${w.walletId}`, async () => {
      const known = store.tx(key);
      if (known) {
        // Signed once: re-broadcast (a no-op if it is already in the pool or mined).
        await client.sendRawTransaction({ serializedTransaction: known.raw }).catch(() => {});
        return c.json({ txHash: known.hash, policyId: store.policy(w.walletId)?.policyId });
      }
      const value = BigInt(body.value ?? "0");
      const { policy, denial } = check(w.walletId, w.agentId, {
        kind: "transaction",
        to: body.to,
        value,
        data: body.data,
        at: new Date(),
      });
      if (denial) return c.json(denial, 403);
      const account = privateKeyToAccount(store.unseal(w.key));
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
      store.addTx(key, { hash, raw }); // before broadcasting: a crash now re-broadcasts, never re-signs
      await client.sendRawTransaction({ serializedTransaction: raw });
      deliver("sign", {
        eventType: "transaction.sent",
        agentId: w.agentId,
        walletId: w.walletId,
        data: { txHash: hash },
      });
      return c.json({ txHash: hash, policyId: policy.policyId });
    });
  });

  app.post("/v1/wallets/:id/sign-message", async (c) => {
    const w = store.wallet(c.req.param("id"));
    if (!w) return c.json({ error: "not_found" }, 404);
    const { message } = await c.req.json<{ message?: string }>();
    if (typeof message !== "string") return c.json({ error: "message required" }, 400);
    const { policy, denial } = check(w.walletId, w.agentId, {
      kind: "message",
      message,
      at: new Date(),
    });
    if (denial) return c.json(denial, 403);
    const signature = await privateKeyToAccount(store.unseal(w.key)).signMessage({ message });
    return c.json({ signature, policyId: policy.policyId });
  });

  app.get("/v1/wallets/:id/policy", (c) => {
    const policy = store.policy(c.req.param("id"));
    return policy ? c.json(policy) : c.json({ error: "not_found" }, 404);
  });

  app.put("/v1/wallets/:id/policy", async (c) => {
    const id = c.req.param("id");
    const current = store.policy(id);
    if (!current) return c.json({ error: "not_found" }, 404);
    const { rules } = await c.req.json<{ rules?: PolicyRules }>();
    if (!rules || typeof rules !== "object") return c.json({ error: "rules required" }, 400);
    const next: Policy = {
      policyId: randomUUID(),
      version: current.version + 1,
      rules,
      createdAt: new Date().toISOString(),
    };
    store.addPolicy(id, next);
    return c.json(next);
  });

  app.onError((error, c) => {
    p.log.error({ err: error }, "steward stand-in error");
    return c.json({ error: "internal", reason: error.message.split("\n")[0] }, 500);
  });
  return app;
}
