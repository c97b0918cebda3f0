import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { dashboardRecords, walletInventory } from "../../lib/dashboard/read.ts";
import {
  addApp,
  addWallet,
  putBurnConfig,
  putPersona,
  removeApp,
  removeWallet,
} from "../../lib/dashboard/records.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError, invalidInput } from "../errors.ts";
import { parseJsonBody } from "../http/json-body.ts";
import { AgentParams, ErrorEnvelope, jsonResponse, okEnvelope } from "../http/schemas.ts";
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

/** The body as `schema` has it; read after the credentials are checked (401 before 400). */
const parseBody = async <T extends z.ZodType>(c: Context, schema: T) =>
  parseJsonBody(await c.req.text(), schema);

const WRITE_ERRORS = {
  400: jsonResponse("validation_failed: the body or a path parameter is invalid", ErrorEnvelope),
  401: jsonResponse("AGENT_AUTH_MISSING or AGENT_AUTH_INVALID", ErrorEnvelope),
  403: jsonResponse(
    "AGENT_SCOPE_FORBIDDEN (no agent:write) or not_authorized (another agent's key)",
    ErrorEnvelope,
  ),
  404: jsonResponse("No agent has this token address (or no such record)", ErrorEnvelope),
  429: jsonResponse("Too many requests", ErrorEnvelope),
};

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

  w.put(`${base}/persona`, owner, async (c) => {
    const body = await parseBody(c, PersonaBody);
    const a = agentOf(c);
    await putPersona(d.sql, a.agentId, c.get("actor"), body);
    const { persona } = await dashboardRecords(d.sql, a.agentId);
    return c.json({ ok: true as const, data: persona }, 200);
  });

  w.post(`${base}/apps`, owner, async (c) => {
    const body = await parseBody(c, AppBody);
    const a = agentOf(c);
    const appId = await addApp(d.sql, a.agentId, c.get("actor"), body);
    const { apps } = await dashboardRecords(d.sql, a.agentId);
    return c.json({ ok: true as const, data: apps.find((x) => x.appId === appId) }, 201);
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

  w.put(`${base}/burn-config`, owner, async (c) => {
    const body = await parseBody(c, BurnConfigBody);
    const a = agentOf(c);
    await putBurnConfig(d.sql, a.agentId, c.get("actor"), body.items);
    const { burnConfig } = await dashboardRecords(d.sql, a.agentId);
    return c.json({ ok: true as const, data: { items: burnConfig } }, 200);
  });

  w.post(`${base}/wallets`, owner, async (c) => {
    const body = await parseBody(c, WalletBody);
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
    return c.json({ ok: true as const, data: added }, 201);
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

  registerWriteDocs(app);
}

function registerWriteDocs(app: OpenAPIHono<AppEnv>) {
  const security: Record<string, string[]>[] = [{ agentKey: [] }, { agentKeyHeader: [] }];
  const json = <T extends z.ZodType>(schema: T) => ({
    required: true,
    content: { "application/json": { schema } },
  });
  const doc = (
    method: "put" | "post" | "delete",
    path: string,
    summary: string,
    status: 200 | 201,
    data: z.ZodType,
    body?: z.ZodType,
    extraParams: Record<string, z.ZodType> = {},
  ) =>
    app.openAPIRegistry.registerPath({
      method,
      path: `/v2/agents/{agent}${path}`,
      tags: ["dashboard"],
      summary,
      security,
      request: {
        params: AgentParams.extend(extraParams),
        ...(body ? { body: json(body) } : {}),
      },
      responses: { [status]: jsonResponse(summary, okEnvelope(data)), ...WRITE_ERRORS },
    });
  doc("put", "/persona", "Create or replace the agent's persona", 200, Persona, PersonaBody);
  doc("post", "/apps", "Add an app the agent shipped", 201, AgentApp, AppBody);
  doc(
    "delete",
    "/apps/{appId}",
    "Remove one of the agent's apps",
    200,
    z.object({ appId: z.uuid(), removed: z.literal(true) }),
    undefined,
    { appId: z.uuid() },
  );
  doc(
    "put",
    "/burn-config",
    "Replace the agent's burn config (line items, in order)",
    200,
    z.object({ items: z.array(BurnItem) }),
    BurnConfigBody,
  );
  doc(
    "post",
    "/wallets",
    "Register a wallet (chain, address, role)",
    201,
    RegisteredWallet,
    WalletBody,
  );
  doc(
    "delete",
    "/wallets/{chain}/{address}",
    "Unregister a wallet",
    200,
    z.object({ chain: z.string(), address: z.string(), removed: z.literal(true) }),
    undefined,
    { chain: z.enum(["bsc", "arbitrum", "hyperliquid"]), address: z.string() },
  );
}
