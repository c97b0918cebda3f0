import { randomBytes, randomUUID } from "node:crypto";
import { Hono } from "hono";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Logger } from "../../../lib/logger.ts";
import {
  type AgentIdentity,
  POLICY_TYPES,
  type PolicyRule,
} from "../../../services/steward/protocol.ts";
import type { StewardStore, StoredWallet } from "./store.ts";

const AGENT_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const MAX_RULES = 50;
const bad = (error: string) => ({ ok: false as const, error });
const text = (v: unknown): v is string => typeof v === "string" && v.trim() !== "";

export function identity(w: StoredWallet, tenantId: string): AgentIdentity {
  return {
    id: w.walletId,
    tenantId,
    name: w.name ?? w.agentId,
    walletAddress: w.address,
    walletAddresses: { evm: w.address },
    platformId: w.agentId,
    createdAt: w.createdAt ?? new Date(0).toISOString(),
  };
}

/**
 * `/agents` as Steward answers it: create (the id is Steward's own `agt_…`; the caller's `id`
 * is checked, then kept only as the platformId when none is given), read, and the policy
 * rules (a PUT body is the bare array). Mounted at `/agents` and `/v1/agents`.
 */
export function agentRoutes(d: { store: StewardStore; tenantId: string; log: Logger }) {
  const app = new Hono();
  app.post("/", async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as
      | { id?: unknown; name?: unknown; platformId?: unknown }
      | undefined;
    if (!body || typeof body !== "object") return c.json(bad("Invalid JSON in request body"), 400);
    if (body.id !== undefined && !(typeof body.id === "string" && AGENT_ID.test(body.id))) {
      return c.json(
        bad("Invalid agent id — must be 1-128 alphanumeric characters (plus _ - . :)"),
        400,
      );
    }
    if (!text(body.name))
      return c.json(bad("name is required and must be a non-empty string"), 400);
    if (body.platformId !== undefined && body.platformId !== null && !text(body.platformId)) {
      return c.json(bad("platformId must be a non-empty string"), 400);
    }
    const key = generatePrivateKey();
    const walletId = `agt_${randomUUID()}`;
    const w: StoredWallet = {
      walletId,
      agentId:
        (body.platformId as string | undefined) ?? (body.id as string | undefined) ?? walletId,
      address: privateKeyToAccount(key).address.toLowerCase() as Hex,
      key: d.store.seal(key, walletId),
      name: body.name,
      createdAt: new Date().toISOString(),
    };
    d.store.addWallet(w);
    d.log.info({ walletId, agentId: w.agentId, address: w.address }, "agent created");
    return c.json({ ok: true, data: identity(w, d.tenantId) });
  });
  app.get("/:agentId", (c) => {
    const w = d.store.wallet(c.req.param("agentId"));
    if (!w) return c.json(bad("Agent not found"), 404);
    return c.json({ ok: true, data: identity(w, d.tenantId) });
  });
  app.get("/:agentId/policies", (c) => {
    const id = c.req.param("agentId");
    if (!d.store.wallet(id)) return c.json(bad("Agent not found"), 404);
    return c.json({ ok: true, data: d.store.rules(id) });
  });
  app.put("/:agentId/policies", async (c) => {
    const id = c.req.param("agentId");
    if (!d.store.wallet(id)) return c.json(bad("Agent not found"), 404);
    const rules = await c.req.json().catch(() => undefined);
    if (!Array.isArray(rules))
      return c.json(bad("Request body must be a JSON array of policies"), 400);
    if (rules.length > MAX_RULES) {
      return c.json(bad(`Policy list cannot contain more than ${MAX_RULES}`), 400);
    }
    const invalid = rules.findIndex(
      (r: Partial<PolicyRule> | null) =>
        !r ||
        !POLICY_TYPES.includes(r.type as (typeof POLICY_TYPES)[number]) ||
        typeof r.enabled !== "boolean" ||
        !r.config ||
        typeof r.config !== "object" ||
        Array.isArray(r.config) ||
        (r.id !== undefined && !text(r.id)),
    );
    if (invalid >= 0) return c.json(bad(`Invalid policy at index ${invalid}`), 400);
    const stored = (rules as PolicyRule[]).map((r) => ({
      id: r.id ?? randomUUID(),
      type: r.type,
      enabled: r.enabled,
      config: r.config,
    }));
    d.store.setRules(id, stored);
    return c.json({ ok: true, data: stored });
  });
  return app;
}

/** `GET|POST /webhooks`: the tenant's delivery URLs; the secret is shown once, at creation. */
export function webhookRoutes(d: { store: StewardStore; tenantId: string }) {
  const app = new Hono();
  const view = ({ secret: _s, ...w }: ReturnType<StewardStore["webhooks"]>[number]) => w;
  app.get("/", (c) => c.json({ ok: true, data: d.store.webhooks().map(view) }));
  app.post("/", async (c) => {
    const b = (await c.req.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!b || typeof b !== "object") return c.json(bad("Invalid JSON in request body"), 400);
    let url: URL | undefined;
    try {
      url = new URL(String(b.url));
    } catch {}
    if (!url || !["http:", "https:"].includes(url.protocol)) return c.json(bad("Invalid url"), 400);
    const events = b.events ?? [];
    if (!Array.isArray(events) || !events.every(text)) {
      return c.json(bad("events must be an array of event types"), 400);
    }
    const at = new Date().toISOString();
    const hook = {
      id: randomUUID(),
      tenantId: d.tenantId,
      url: url.toString(),
      secret: randomBytes(32).toString("hex"),
      events: events as string[],
      enabled: true,
      maxRetries: typeof b.maxRetries === "number" ? b.maxRetries : 3,
      retryBackoffMs: typeof b.retryBackoffMs === "number" ? b.retryBackoffMs : 1_000,
      ...(text(b.description) ? { description: b.description } : {}),
      createdAt: at,
      updatedAt: at,
    };
    d.store.addWebhook(hook);
    return c.json({ ok: true, data: hook });
  });
  return app;
}
