import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { errorResponse, IsoTime, jsonResponse, okEnvelope } from "../http/schemas.ts";
import { operatorOnly } from "../middleware/operator/index.ts";

const OperatorLaunch = z
  .object({
    launchId: z.string(),
    kind: z.enum(["agent", "deposit"]).openapi({
      description:
        "`agent`: an attempt of POST /v2/agents/launch; `deposit`: a POST /v2/launches request",
    }),
    status: z.enum(["running", "succeeded", "failed", "pending", "created"]).openapi({
      description: "agent: running, succeeded or failed; deposit: pending, created or failed",
    }),
    agentId: z.string().nullable(),
    creator: z.string().nullable().openapi({ description: "deposit: the signed-in wallet" }),
    attempt: z.number().int().nullable(),
    step: z.string().nullable().openapi({ description: "agent: the saga's step (that failed)" }),
    code: z.string().nullable().openapi({
      description: "agent: the code its caller was given (LAUNCHPAD_ERROR, ORCHESTRATOR_UNAVAIL)",
    }),
    cause: z.string().nullable().openapi({
      description:
        "Why it failed, as recorded: an upstream's answer or address, a database error, a revert. Never shown to the caller",
    }),
    txHash: z.string().nullable(),
    startedAt: IsoTime,
    finishedAt: IsoTime.nullable(),
  })
  .openapi("OperatorLaunch");

type OperatorLaunchBody = z.infer<typeof OperatorLaunch>;

const route = (auth: ReturnType<typeof operatorOnly>) =>
  createRoute({
    method: "get",
    path: "/v2/admin/launches/{launchId}",
    tags: ["operator"],
    summary: "A launch by the id its failure gave the caller, with the cause",
    description:
      "A failed launch answers its caller with fixed words and an id (`launchId` of an agent launch, `launchRequestId` of a deposit launch), never the cause. This is where the cause is: the agent launch attempt or deposit launch request with that id.",
    security: [{ operatorToken: [] }],
    middleware: [auth] as const,
    request: { params: z.object({ launchId: z.uuid() }) },
    responses: {
      200: jsonResponse("The launch", okEnvelope(OperatorLaunch)),
      400: errorResponse("validation_failed: launchId is not a UUID"),
      401: errorResponse("not_authenticated: operator token missing or wrong"),
      404: errorResponse("not_found: no launch has this id, or the operator API is off"),
    },
  });

/**
 * `GET /v2/admin/launches/{launchId}` (operators): the cause a failed launch keeps from its
 * caller, found by the id the caller was given.
 *
 * @example
 * registerOperatorLaunches(app, { sql, adminToken: config.ADMIN_TOKEN });
 */
export function registerOperatorLaunches(
  app: OpenAPIHono<AppEnv>,
  d: { sql: Sql; adminToken?: string },
) {
  app.openapi(route(operatorOnly(d.adminToken)), async (c) => {
    const { launchId } = c.req.valid("param");
    const found = (await agentLaunch(d.sql, launchId)) ?? (await depositLaunch(d.sql, launchId));
    if (!found) throw new HttpError("not_found", { message: `no launch has the id ${launchId}` });
    return c.json({ ok: true as const, data: found }, 200);
  });
}

const iso = (t: Date | null) => t?.toISOString() ?? null;

/** The saga's current attempt, else an earlier attempt's failure from its step records. */
async function agentLaunch(sql: Sql, launchId: string): Promise<OperatorLaunchBody | undefined> {
  const [s] = await sql<
    {
      agent_id: string;
      attempt: number;
      status: "running" | "succeeded" | "failed";
      step: string | null;
      error_code: string | null;
      error_detail: string | null;
      create_tx: string | null;
      started_at: Date;
      finished_at: Date | null;
    }[]
  >`select agent_id, attempt, status, step, error_code, error_detail, create_tx, started_at,
      finished_at
    from app.launch_sagas where launch_id = ${launchId}`;
  if (s) {
    return {
      launchId,
      kind: "agent",
      status: s.status,
      agentId: s.agent_id,
      creator: null,
      attempt: s.attempt,
      step: s.step,
      code: s.error_code,
      cause: s.error_detail,
      txHash: s.create_tx,
      startedAt: s.started_at.toISOString(),
      finishedAt: iso(s.finished_at),
    };
  }
  const [e] = await sql<
    {
      agent_id: string;
      attempt: number;
      step: string;
      detail: { code?: string; message?: string } | null;
      at: Date;
      started_at: Date;
    }[]
  >`select e.agent_id, e.attempt, e.step, e.detail, e.at,
      (select min(b.at) from app.launch_steps b where b.launch_id = e.launch_id) as started_at
    from app.launch_steps e where e.launch_id = ${launchId} and e.phase = 'error'
    order by e.id desc limit 1`;
  if (!e) return undefined;
  return {
    launchId,
    kind: "agent",
    status: "failed",
    agentId: e.agent_id,
    creator: null,
    attempt: e.attempt,
    step: e.step,
    code: e.detail?.code ?? null,
    cause: e.detail?.message ?? null,
    txHash: null,
    startedAt: e.started_at.toISOString(),
    finishedAt: e.at.toISOString(),
  };
}

async function depositLaunch(sql: Sql, requestId: string): Promise<OperatorLaunchBody | undefined> {
  const [r] = await sql<
    {
      creator: string;
      status: "pending" | "created" | "failed";
      error_detail: string | null;
      tx_hash: string | null;
      created_at: Date;
      updated_at: Date;
    }[]
  >`select creator, status, error_detail, tx->>'hash' as tx_hash, created_at, updated_at
    from app.deposit_launch_requests where request_id = ${requestId}`;
  if (!r) return undefined;
  return {
    launchId: requestId,
    kind: "deposit",
    status: r.status,
    agentId: null,
    creator: r.creator,
    attempt: null,
    step: null,
    code: null,
    cause: r.error_detail,
    txHash: r.tx_hash,
    startedAt: r.created_at.toISOString(),
    finishedAt: r.status === "pending" ? null : r.updated_at.toISOString(),
  };
}
