import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError, type LaunchErrorBody, renderError } from "../errors.ts";
import { AGENT_KEY_SECURITY, errorResponse, jsonBody, jsonResponse } from "../http/schemas.ts";
import { validationHook } from "../http/validation.ts";
import { LAUNCH_RETRY_AFTER_SECONDS } from "../limits.ts";
import { type AgentAuthEnv, agentAuth } from "../middleware/agent-auth/index.ts";
import { LaunchError, LaunchRequest, LaunchResponse, type LaunchResponseBody } from "./schema.ts";
import { countLaunchRequest, type LaunchDeps, launchAgent } from "./service.ts";

/** Renders any error of the launch endpoint as its own error object `{ok:false, error, detail?, code?}`. */
export function renderLaunchError(c: Context, error: unknown) {
  return renderError(c, error, "launch");
}

/** A launch body that fails LaunchRequest: 400 INVALID_REQUEST with one detail per problem. */
export const launchBodyHook = validationHook("INVALID_REQUEST");

/**
 * What a launch request passes before its body is read, in api/AGENT.md's order: the key
 * (present, valid, scope), then one count against the key's per-minute budget (429).
 *
 * @example
 * createRoute({ ..., middleware: launchGuards({ sql, perKeyPerMinute: 10 }) });
 */
export function launchGuards(d: {
  sql: Sql;
  perKeyPerMinute?: number;
}): MiddlewareHandler<AgentAuthEnv>[] {
  const count: MiddlewareHandler<AgentAuthEnv> = async (c, next) => {
    await countLaunchRequest(d.sql, c.get("agentKey").keyId, d.perKeyPerMinute);
    await next();
  };
  return [agentAuth({ sql: d.sql }), count];
}

/** A launch error response: the launch error body under `description`. */
export const launchErrorResponse = (description: string) => jsonResponse(description, LaunchError);

/** What the launch and its preview refuse alike: the body, the key, a launched agent, the rate. */
export const launchGuardErrors = () => ({
  400: launchErrorResponse("INVALID_REQUEST: the body (or its image) is invalid; see details"),
  401: launchErrorResponse("AGENT_AUTH_MISSING or AGENT_AUTH_INVALID"),
  403: launchErrorResponse("AGENT_SCOPE_FORBIDDEN or AGENT_ID_MISMATCH"),
  409: launchErrorResponse("AGENT_ALREADY_LAUNCHED (or a launch is in progress)"),
  429: launchErrorResponse("rate_limited: more than 10 launch requests per minute with this key"),
});

const launchRoute = (d: { sql: Sql; launch: LaunchDeps }) =>
  createRoute({
    method: "post",
    path: "/v2/agents/launch",
    tags: ["agents"],
    summary: "Launch the authenticated agent's token (once per agent lifetime)",
    description:
      "Provisions the agent's wallet, treasury Safe and ERC-8004 identity, then creates its token (2% buy / 2% sell tax to the treasury). Waits for the launch; an optional Idempotency-Key replays the first answer.",
    security: AGENT_KEY_SECURITY,
    middleware: launchGuards({ sql: d.sql, perKeyPerMinute: d.launch.perKeyPerMinute }),
    request: {
      body: jsonBody(LaunchRequest),
    },
    responses: {
      200: jsonResponse("Launched", LaunchResponse),
      ...launchGuardErrors(),
      502: launchErrorResponse(
        "LAUNCHPAD_ERROR: the launch failed at four.meme or on chain. `detail` is fixed per code, never the cause; retry after 1 s, 2 s, 4 s, then quote `launchId` to the operator",
      ),
      503: launchErrorResponse(
        "ORCHESTRATOR_UNAVAIL: the launch failed at the signer, the chain or the service's own infrastructure (or still runs at the deadline); `detail` is fixed, never the cause; retry after 1 s, 2 s, 4 s with the same Idempotency-Key, then quote `launchId` to the operator",
      ),
    },
  });

/**
 * `POST /v2/agents/launch` (checks in the spec's order: key present, key valid, scope, per-key
 * rate, body, agent match, not launched, image, then the saga) and the ERC-8004 registration
 * file each launched identity points at.
 *
 * @example
 * registerLaunch(app, { sql, launch });
 */
export function registerLaunch(app: OpenAPIHono<AppEnv>, d: { sql: Sql; launch: LaunchDeps }) {
  const sub = new OpenAPIHono<AgentAuthEnv>({ defaultHook: launchBodyHook });
  sub.openapi(launchRoute(d), async (c) => {
    const key = c.get("agentKey");
    const body = c.req.valid("json");
    const idem = c.req.header("idempotency-key")?.trim();
    if (idem !== undefined && (idem.length === 0 || idem.length > 200)) {
      throw new HttpError("INVALID_REQUEST", {
        message: "Idempotency-Key must be 1-200 characters",
        details: [{ path: "Idempotency-Key", message: "must be 1-200 characters" }],
      });
    }
    const answer = await launchAgent(d.launch, {
      keyAgentId: key.agentId,
      body,
      idempotencyKey: idem,
    });
    // A failed or unfinished saga is retryable: say when (api/AGENT.md "Errors": after 1 s, 2 s, 4 s).
    if (answer.status >= 500) c.header("Retry-After", String(LAUNCH_RETRY_AFTER_SECONDS));
    // One of the documented bodies: its status says which.
    return answer.status === 200
      ? c.json(answer.body as LaunchResponseBody, 200)
      : c.json(answer.body as LaunchErrorBody, answer.status);
  });
  // Every refusal (the key, the rate, the media type, the body) in the launch's own error object.
  sub.onError((error, c) => renderLaunchError(c, error));
  app.route("/", sub);

  // ERC-8004 registration file (the agentURI of the identity NFT).
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/v2/registrations/{file}",
    tags: ["agents"],
    summary: "The ERC-8004 registration file an agent's identity NFT points at",
    request: {
      params: z.object({
        file: z
          .string()
          .regex(/^[0-9a-f-]{36}\.json$/)
          .openapi({ example: "<agentId>.json" }),
      }),
    },
    responses: {
      200: {
        description: "The registration file (EIP-8004 registration-v1)",
        content: {
          "application/json": {
            schema: z.object({ type: z.string(), name: z.string() }).passthrough(),
          },
        },
      },
      404: errorResponse("not_found: no agent with this id has started a launch"),
    },
  });
  app.get("/v2/registrations/:file{[0-9a-f-]{36}\\.json}", async (c) => {
    const agentId = c.req.param("file").replace(/\.json$/, "");
    const [a] = (await d.sql`select s.eip8004_token_id::text as eip8004_token_id, a.token_address,
        s.wallet_address, s.treasury_address, s.request
      from app.agents a left join app.launch_sagas s using (agent_id) where a.agent_id = ${agentId}`) as unknown as {
      eip8004_token_id: string | null;
      token_address: string | null;
      wallet_address: string | null;
      treasury_address: string | null;
      request: { name: string; description: string; imageUrl: string } | null;
    }[];
    if (!a?.request)
      throw new HttpError("not_found", { message: `no agent ${agentId} has started a launch` });
    return c.json({
      type: "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
      name: a.request.name,
      description: a.request.description,
      image: a.request.imageUrl,
      services: a.token_address
        ? [{ name: "web", endpoint: `${d.launch.webUrl}/agent/${a.token_address}` }]
        : [],
      registrations: a.eip8004_token_id ? [{ agentId: Number(a.eip8004_token_id) }] : [],
      agentWallet: a.wallet_address,
      treasury: a.treasury_address,
      active: true,
    });
  });
}
