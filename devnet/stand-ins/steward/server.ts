import { timingSafeEqual } from "node:crypto";
import { Hono, type MiddlewareHandler } from "hono";
import { type Chain, createPublicClient, http, type PublicClient } from "viem";
import { viemChain } from "../../../lib/chain.ts";
import type { Logger } from "../../../lib/logger.ts";
import { keyedMutex } from "../../../lib/mutex.ts";
import { STAND_IN_LIMITS } from "../../limits.ts";
import { standInRateLimit } from "../rate-limit.ts";
import { agentRoutes, webhookRoutes } from "./agents.ts";
import { idempotency } from "./idempotency.ts";
import { createOutbox } from "./outbox.ts";
import { StewardStore } from "./store.ts";
import { vaultRoutes } from "./vault.ts";

export type StewardStandInParameters = {
  rpcUrl: string;
  chainId: number;
  /** The tenant's key (`X-Steward-Key`) and id (`X-Steward-Tenant`). */
  apiKey: string;
  tenantId: string;
  /**
   * Our API's base URL: two webhooks are registered at start, as an operator registers them
   * at a real Steward, `…/v2/webhooks/steward/policy` and `…/sign`, with this secret.
   */
  webhookBaseUrl: string;
  webhookSecret: string;
  storePath: string;
  masterKey: Buffer;
  log: Logger;
  /** The deliveries' clock; tests inject one. */
  now?: () => Date;
  /**
   * Requests per window per client address, and the window: default Steward's 100 a minute
   * (`RATE_LIMIT_MAX_REQUESTS`, `RATE_LIMIT_WINDOW_MS`; a deployment sets both).
   */
  requestsPerMinute?: number;
  rateLimitWindowMs?: number;
};

/** The events each of our two receivers takes (docs/events.md has the mapping). */
export const STEWARD_WEBHOOK_EVENTS = {
  policy: ["tx.pending", "tx.approved", "tx.denied", "tx.signed", "policy.violation"],
  sign: ["transaction.broadcasted", "transaction.confirmed"],
} as const;

/**
 * The local stand-in of Steward: the subset of its API the service calls (docs/upstreams.md),
 * with its tenant headers, `{ok, data}` envelope, validation, status codes and idempotency,
 * its own webhook deliveries (v2 signature, stable delivery ids, an outbox) and the rule types
 * of the agent's Steward policy it enforces (stand-in/rules.ts). Keys are sealed with
 * AES-256-GCM; signing calls of one wallet run one at a time.
 */
export function createStewardApp(p: StewardStandInParameters) {
  const store = new StewardStore(p.storePath, p.masterKey, p.log);
  const chain: Chain = viemChain({ id: p.chainId, name: "bsc", rpcUrls: [p.rpcUrl] });
  const client = createPublicClient({ chain, transport: http(p.rpcUrl) }) as PublicClient;
  const now = p.now ?? (() => new Date());
  for (const [kind, events] of Object.entries(STEWARD_WEBHOOK_EVENTS)) {
    const url = `${p.webhookBaseUrl}/v2/webhooks/steward/${kind}`;
    const at = new Date().toISOString();
    store.addWebhook({
      id: `launchpad-${kind}`,
      tenantId: p.tenantId,
      url,
      secret: p.webhookSecret,
      events: [...events],
      enabled: true,
      maxRetries: 3,
      retryBackoffMs: 1_000,
      createdAt: at,
      updatedAt: at,
    });
  }
  const outbox = createOutbox({ store, tenantId: p.tenantId, log: p.log, now });
  const lock = keyedMutex();
  const app = new Hono();

  // Steward's global limit (packages/api/src/middleware/global-rate-limit.ts): per client
  // address, every path but its probes, 429 `{ok: false, error}` with Retry-After in seconds.
  app.use(
    "*",
    standInRateLimit({
      limit: p.requestsPerMinute ?? STAND_IN_LIMITS.stewardRequestsPerMinute,
      windowMs: p.rateLimitWindowMs ?? 60_000,
      skip: (path) => path === "/health" || path === "/ready",
      refuse: (c, retryAfterMs) =>
        c.json({ ok: false, error: "Rate limit exceeded" }, 429, {
          "Retry-After": String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
        }),
    }).middleware,
  );
  app.get("/health", (c) => c.json({ ok: true, data: { service: "steward-stand-in" } }));
  const auth = tenantAuth(p.apiKey, p.tenantId);
  for (const path of ["/agents", "/v1/agents", "/vault", "/webhooks"]) {
    app.use(path, auth);
    app.use(`${path}/*`, auth);
  }
  app.use("*", idempotency(store));
  const agents = agentRoutes({ store, tenantId: p.tenantId, log: p.log });
  app.route("/agents", agents);
  app.route("/v1/agents", agents);
  app.route("/webhooks", webhookRoutes({ store, tenantId: p.tenantId }));
  app.route(
    "/vault",
    vaultRoutes({
      store,
      lock,
      now,
      chainId: p.chainId,
      client,
      emit: outbox.emit,
    }),
  );

  app.notFound((c) => c.json({ ok: false, error: "Not found" }, 404));
  app.onError((error, c) => {
    p.log.error({ err: error }, "steward stand-in error");
    return c.json({ ok: false, error: "Internal server error" }, 500);
  });
  return app;
}

/** Steward's tenant check: the key and tenant headers, or 403 `Forbidden` (constant time). */
function tenantAuth(apiKey: string, tenantId: string): MiddlewareHandler {
  const want = Buffer.from(apiKey);
  return async function stewardTenantAuth(c, next) {
    const got = Buffer.from(c.req.header("x-steward-key") ?? "");
    const keyOk = got.length === want.length && timingSafeEqual(got, want);
    if (!keyOk || c.req.header("x-steward-tenant") !== tenantId) {
      return c.json({ ok: false, error: "Forbidden" }, 403);
    }
    await next();
  };
}
