import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import {
  bpsToPercent,
  PledgeTerms,
  type PledgeVersion,
  percentToBps,
  utcDayStart,
} from "../../lib/policy/pledge.ts";
import {
  pledgeState,
  pledgeVersions,
  savePledge,
  soldSince,
} from "../../lib/policy/pledge-store.ts";
import type { AppEnv } from "../env.ts";
import {
  AGENT_KEY_SECURITY,
  AgentParams,
  COMMON_ERRORS,
  errorResponse,
  jsonBody,
  jsonResponse,
  okEnvelope,
} from "../http/schemas.ts";
import { agentOwner } from "../middleware/agent-owner/index.ts";
import { agentOf, agentPath } from "../middleware/agent-path/index.ts";

export type PledgeRouteDeps = {
  sql: Sql;
  adminToken?: string;
  /** The policy's clock (tests inject one): when a loosening binds. */
  now?: () => Date;
};

const Pledge = z
  .object({
    pledgeId: z.string(),
    lockDays: z
      .number()
      .int()
      .openapi({ description: "No sale of the agent's token for this many days after its launch" }),
    maxDailySellPercent: z.string().openapi({
      description:
        "At most this share of its holding (the balance plus what it sold that UTC day) sold in a UTC day",
      example: "2.5",
    }),
    loosenDelayDays: z
      .number()
      .int()
      .openapi({ description: "How long a loosening of this pledge waits" }),
    createdAt: z.iso.datetime(),
    effectiveAt: z.iso.datetime().openapi({
      description: "When it binds: its save for a tightening, that plus the delay for a loosening",
    }),
    cancelledAt: z.iso
      .datetime()
      .nullable()
      .openapi({ description: "A later save cancelled it before it bound" }),
    createdBy: z.object({ kind: z.enum(["agent", "operator", "signer"]), id: z.string() }),
  })
  .openapi("SellPledge");

const PledgeView = z
  .object({
    inForce: Pledge.nullable().openapi({
      description: "The pledge that binds now; null: the agent promised nothing",
    }),
    pending: Pledge.nullable().openapi({ description: "A loosening waiting for its delay" }),
    lockedUntil: z.iso.datetime().nullable().openapi({
      description: "No sale before this time (launch + lockDays); null without a lock-up",
    }),
    soldTodayUnits: z.string().openapi({
      description:
        "Token units the agent's wallet sold or sent through the service since 00:00 UTC",
    }),
    history: z.array(Pledge).openapi({ description: "Every version, newest first" }),
  })
  .openapi("SellPledgeView");

const toPledge = (v: PledgeVersion) => ({
  pledgeId: v.id,
  lockDays: v.lockDays,
  maxDailySellPercent: bpsToPercent(v.maxDailySellBps),
  loosenDelayDays: v.loosenDelayDays,
  createdAt: v.createdAt.toISOString(),
  effectiveAt: v.effectiveAt.toISOString(),
  cancelledAt: v.cancelledAt?.toISOString() ?? null,
  createdBy: v.createdBy,
});

async function view(sql: Sql, agentId: string, launchedAt: Date | null, now: Date) {
  const versions = await pledgeVersions(sql, agentId);
  const { inForce, pending } = pledgeState(versions, now);
  const lockedUntil =
    inForce && inForce.lockDays > 0 && launchedAt
      ? new Date(launchedAt.getTime() + inForce.lockDays * 86_400_000).toISOString()
      : null;
  return {
    inForce: inForce && toPledge(inForce),
    pending: pending && toPledge(pending),
    lockedUntil,
    soldTodayUnits: (await soldSince(sql, agentId, utcDayStart(now))).toString(),
    history: versions.map(toPledge),
  };
}

/**
 * `GET|PUT /v2/agents/{agent}/pledge`: the agent's public promise on selling its own token,
 * enforced at the signer (api/policy/pledge-gate.ts). Reads are open; a save takes the agent's
 * key or the operator token. A tightening binds at once; a loosening after the delay stated in
 * the pledge in force (docs/policies.md, "Sell pledge").
 *
 * @example
 * registerPledge(app, { sql, adminToken, now });
 */
export function registerPledge(app: OpenAPIHono<AppEnv>, d: PledgeRouteDeps) {
  const path = "/v2/agents/{agent}/pledge";
  const now = () => d.now?.() ?? new Date();
  const errors = {
    ...COMMON_ERRORS,
    404: errorResponse("No agent has this token address or id"),
  };
  app.openapi(
    {
      method: "get",
      path,
      tags: ["policy"],
      summary: "The agent's sell pledge: in force, waiting, and its history",
      request: { params: AgentParams },
      middleware: [agentPath({ sql: d.sql })],
      responses: { 200: jsonResponse("The pledge", okEnvelope(PledgeView)), ...errors },
    },
    async (c) => {
      const a = agentOf(c);
      return c.json(
        { ok: true as const, data: await view(d.sql, a.agentId, a.launchedAt, now()) },
        200,
      );
    },
  );
  app.openapi(
    {
      method: "put",
      path,
      tags: ["policy"],
      summary: "Pledge how much of its own token the agent may sell",
      description:
        "Terms: `lockDays` (no sale for that many days after launch), `maxDailySellPercent` (of its holding a UTC day) and `loosenDelayDays` (default 7). Every term that is stricter than the pledge in force binds at once; if any term is looser, the new terms as a whole bind only after the in-force pledge's `loosenDelayDays` (answered as `pending`), and a later save cancels a loosening still waiting. The signer refuses a sale over the pledge in force (403 `policy_denied`, code `sell_pledge_locked` or `sell_pledge_daily_exceeded`), and the refusal is an anomaly on the operator's panel.",
      security: AGENT_KEY_SECURITY,
      middleware: [agentOwner({ sql: d.sql, adminToken: d.adminToken })] as const,
      request: { params: AgentParams, body: jsonBody(PledgeTerms) },
      responses: {
        200: jsonResponse("The pledge after the save", okEnvelope(PledgeView)),
        ...errors,
        400: errorResponse("validation_failed: a term is missing or out of range"),
        401: errorResponse("AGENT_AUTH_MISSING or AGENT_AUTH_INVALID"),
        403: errorResponse("AGENT_SCOPE_FORBIDDEN or not_authorized"),
      },
    },
    async (c) => {
      const body = c.req.valid("json");
      const a = agentOf(c);
      const actor = c.get("actor");
      const at = now();
      await savePledge(d.sql, {
        agentId: a.agentId,
        terms: {
          lockDays: body.lockDays,
          maxDailySellBps: percentToBps(body.maxDailySellPercent),
          loosenDelayDays: body.loosenDelayDays,
        },
        actor: { kind: actor.kind, id: actor.id },
        now: at,
      });
      return c.json(
        { ok: true as const, data: await view(d.sql, a.agentId, a.launchedAt, at) },
        200,
      );
    },
  );
}
