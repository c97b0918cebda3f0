import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { dashboardRecords, walletInventory } from "../../lib/agents/read.ts";
import {
  addApp,
  addWallet,
  putBurnConfig,
  putPersona,
  removeApp,
  removeWallet,
} from "../../lib/agents/records.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError, invalidInput } from "../errors.ts";
import {
  AGENT_KEY_SECURITY,
  AgentParams,
  errorResponse,
  jsonBody,
  jsonResponse,
  okEnvelope,
} from "../http/schemas.ts";
import { type AgentOwnerEnv, agentOwner } from "../middleware/agent-owner/index.ts";
import { agentOf } from "../middleware/agent-path/index.ts";
import {
  AgentApp,
  AppBody,
  BurnConfigBody,
  BurnItem,
  Persona,
  PersonaBody,
  RegisteredWallet,
  WalletBody,
} from "./schemas.ts";

const WRITE_ERRORS = {
  400: errorResponse("validation_failed: the body or a path parameter is invalid"),
  401: errorResponse("AGENT_AUTH_MISSING or AGENT_AUTH_INVALID"),
  403: errorResponse(
    "AGENT_SCOPE_FORBIDDEN (no agent:write) or not_authorized (another agent's key)",
  ),
  404: errorResponse("No agent has this token address (or no such record)"),
  429: errorResponse("Too many requests"),
};

/** The four writes with a body; agentOwner runs before the validators (401/403 before 400). */
const writeRoutes = (owner: MiddlewareHandler<AgentOwnerEnv>) => {
  const write = <
    M extends "put" | "post",
    P extends `/v2/agents/{agent}/${string}`,
    B extends z.ZodType,
    R extends Parameters<typeof createRoute>[0]["responses"],
  >(
    method: M,
    path: P,
    summary: string,
    body: B,
    answer: R,
  ) =>
    createRoute({
      tags: ["dashboard"],
      security: AGENT_KEY_SECURITY,
      middleware: [owner] as [typeof owner],
      method,
      path,
      summary,
      request: { params: AgentParams, body: jsonBody(body) },
      responses: { ...answer, ...WRITE_ERRORS },
    });
  const summaries = {
    persona: "Create or replace the agent's persona",
    apps: "Add an app the agent shipped",
    burn: "Replace the agent's burn config (line items, in order)",
    wallets: "Register a wallet (chain, address, role)",
  };
  const ok = <T extends z.ZodType>(summary: string, data: T) =>
    jsonResponse(summary, okEnvelope(data));
  return {
    persona: write("put", "/v2/agents/{agent}/persona", summaries.persona, PersonaBody, {
      200: ok(summaries.persona, Persona),
    }),
    apps: write("post", "/v2/agents/{agent}/apps", summaries.apps, AppBody, {
      201: ok(summaries.apps, AgentApp),
    }),
    burn: write("put", "/v2/agents/{agent}/burn-config", summaries.burn, BurnConfigBody, {
      200: ok(summaries.burn, z.object({ items: z.array(BurnItem) })),
    }),
    wallets: write("post", "/v2/agents/{agent}/wallets", summaries.wallets, WalletBody, {
      201: ok(summaries.wallets, RegisteredWallet),
    }),
  };
};

/** The record a write just made, read back: its absence is a bug (500), never an answer. */
function readBack<T>(v: T | null | undefined, what: string): T {
  if (v == null) throw new Error(`${what} is missing right after it was written`);
  return v;
}

export type DashboardWriteDeps = { sql: Sql; adminToken?: string };

/**
 * The agent's own dashboard writes: persona, apps, burn config, registered wallets. Each one
 * needs the agent's key (scope `agent:write`, own agent only) or the operator token, and
 * emits a `system` event to the agent's feed in the same transaction.
 *
 * @example
 * registerDashboardWrites(app, { sql, adminToken });
 */
export function registerDashboardWrites(app: OpenAPIHono<AppEnv>, d: DashboardWriteDeps) {
  const owner = agentOwner({ sql: d.sql, adminToken: d.adminToken });
  const w = app as unknown as OpenAPIHono<AgentOwnerEnv>;
  const base = "/v2/agents/:agent";
  const r = writeRoutes(owner);

  app.openapi(r.persona, async (c) => {
    const body = c.req.valid("json");
    const a = agentOf(c);
    await putPersona(d.sql, a.agentId, c.get("actor"), body);
    const { persona } = await dashboardRecords(d.sql, a.agentId);
    return c.json({ ok: true as const, data: readBack(persona, "the persona") }, 200);
  });

  app.openapi(r.apps, async (c) => {
    const body = c.req.valid("json");
    const a = agentOf(c);
    const appId = await addApp(d.sql, a.agentId, c.get("actor"), body);
    const { apps } = await dashboardRecords(d.sql, a.agentId);
    const added = readBack(
      apps.find((x) => x.appId === appId),
      "the app",
    );
    return c.json({ ok: true as const, data: added }, 201);
  });

  w.delete(`${base}/apps/:appId`, owner, async (c) => {
    const appId = c.req.param("appId");
    if (!z.uuid().safeParse(appId).success) {
      throw new HttpError("validation_failed", {
        message: "appId: must be a UUID",
        details: [{ path: "appId", message: "must be a UUID" }],
      });
    }
    const a = agentOf(c);
    await removeApp(d.sql, a.agentId, c.get("actor"), appId);
    return c.json({ ok: true as const, data: { appId, removed: true } }, 200);
  });

  app.openapi(r.burn, async (c) => {
    const body = c.req.valid("json");
    const a = agentOf(c);
    await putBurnConfig(d.sql, a.agentId, c.get("actor"), body.items);
    const { burnConfig } = await dashboardRecords(d.sql, a.agentId);
    return c.json({ ok: true as const, data: { items: burnConfig } }, 200);
  });

  app.openapi(r.wallets, async (c) => {
    const body = c.req.valid("json");
    const a = agentOf(c);
    if (
      body.chain === "bsc" &&
      (body.address === a.walletAddress || body.address === a.treasuryAddress)
    ) {
      throw new HttpError("validation_failed", {
        message: "address: this wallet is the agent's own (built in); it is listed already",
        details: [{ path: "address", message: "already the agent's steward wallet or treasury" }],
      });
    }
    await addWallet(d.sql, a.agentId, c.get("actor"), body);
    const all = await walletInventory(d.sql, a);
    const added = all.find(
      (x) => !x.builtIn && x.chain === body.chain && x.address === body.address,
    );
    return c.json({ ok: true as const, data: readBack(added, "the wallet") }, 201);
  });

  w.delete(`${base}/wallets/:chain/:address`, owner, async (c) => {
    const target = WalletBody.pick({ chain: true, address: true }).safeParse({
      chain: c.req.param("chain"),
      address: c.req.param("address"),
    });
    if (!target.success) throw invalidInput("validation_failed", target.error.issues);
    const a = agentOf(c);
    await removeWallet(d.sql, a.agentId, c.get("actor"), target.data);
    return c.json({ ok: true as const, data: { ...target.data, removed: true } }, 200);
  });

  registerRemovalDocs(app);
}

/** The two removals (no body; their parameters are checked in the handlers, after the owner). */
function registerRemovalDocs(app: OpenAPIHono<AppEnv>) {
  const doc = (path: string, summary: string, data: z.ZodType, params: Record<string, z.ZodType>) =>
    app.openAPIRegistry.registerPath({
      method: "delete",
      path: `/v2/agents/{agent}${path}`,
      tags: ["dashboard"],
      summary,
      security: AGENT_KEY_SECURITY,
      request: { params: AgentParams.extend(params) },
      responses: { 200: jsonResponse(summary, okEnvelope(data)), ...WRITE_ERRORS },
    });
  doc(
    "/apps/{appId}",
    "Remove one of the agent's apps",
    z.object({ appId: z.uuid(), removed: z.literal(true) }),
    { appId: z.uuid() },
  );
  doc(
    "/wallets/{chain}/{address}",
    "Unregister a wallet",
    z.object({ chain: z.string(), address: z.string(), removed: z.literal(true) }),
    { chain: z.enum(["bsc", "arbitrum", "hyperliquid"]), address: z.string() },
  );
}
