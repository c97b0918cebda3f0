import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import { view } from "../../lib/db/views.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { dec } from "../http/format.ts";
import {
  dataResponses,
  errorResponse,
  jsonBody,
  jsonResponse,
  OffsetQuery,
  offsetList,
  okEnvelope,
} from "../http/schemas.ts";
import { readViews } from "../http/views.ts";
import { sameOrigin } from "../middleware/same-origin/index.ts";
import { requireSession, siweSession } from "../middleware/session/index.ts";
import { createDepositLaunch, type DepositLaunchDeps } from "./create.ts";
import { depositPosition, type PositionRow } from "./position.ts";
import { previewLaunch } from "./preview.ts";
import {
  CreatedLaunch,
  CreateLaunchBody,
  LaunchParams,
  LaunchPreview,
  MyDeposit,
  PreviewBody,
} from "./schema.ts";

export type LaunchWriteDeps = {
  sql: Sql;
  viewsSchema: string;
  origins: string[];
  /** Absent when the API has no relayer or factory: the writes answer 503. */
  deposit?: DepositLaunchDeps;
};

const routes = (d: LaunchWriteDeps) => ({
  create: createRoute({
    method: "post",
    path: "/v2/launches",
    tags: ["launches"],
    summary: "Create a deposit launch for the signed-in wallet",
    description:
      "The relayer sends the factory's createLaunch with the session's wallet as creator (owner of the launch's treasury Safe) and waits for LaunchCreated. 5 per hour per wallet. An optional Idempotency-Key (1-200 characters) replays the first answer; a retry after a crash re-sends the same transaction, never a second launch. The launch then appears on GET /v2/launches/{id} once indexed.",
    security: [{ siweSession: [] }],
    middleware: [
      requireSession({ sql: d.sql, kind: "siwe" }),
      sameOrigin({ origins: d.origins }),
    ] as const,
    request: {
      headers: z.object({ "idempotency-key": z.string().min(1).max(200).optional() }),
      body: jsonBody(CreateLaunchBody),
    },
    responses: {
      201: jsonResponse("Created on-chain", okEnvelope(CreatedLaunch)),
      400: errorResponse(
        "validation_failed: a field (tier, closeTimestamp, taxes, image, socials) is invalid",
      ),
      401: errorResponse("not_authenticated: no live SIWE session cookie"),
      403: errorResponse("not_authorized: a cross-site Origin"),
      429: errorResponse("rate_limited: more than 5 launches per hour for this wallet"),
      502: errorResponse(
        "upstream_error: the relayer's createLaunch failed; nothing was created. The message is fixed, never the cause; quote `launchRequestId` to the operator",
      ),
      503: errorResponse(
        "unavailable: the chain could not be reached or the transaction is not mined yet (then with `launchRequestId`); retry with the same Idempotency-Key",
      ),
    },
  }),
  preview: createRoute({
    method: "post",
    path: "/v2/launches/{id}/preview",
    tags: ["launches"],
    summary: "Dry run of deposits (and close, execute, claim or refund) against the current chain",
    description:
      "Simulates with eth_simulateV1: nothing is signed or sent. Each step's gas and outcome (a revert names the vault's error, e.g. AboveWalletLimit), and the tokens each depositor of the bundle would receive if the launch executed with the resulting total.",
    request: {
      params: LaunchParams,
      body: jsonBody(PreviewBody),
    },
    responses: dataResponses("The simulation", LaunchPreview, {
      404: errorResponse("not_found: no such launch on the factory"),
    }),
  }),
  mine: createRoute({
    method: "get",
    path: "/v2/users/me/deposits",
    tags: ["launches"],
    summary: "The signed-in wallet's deposits across all launches",
    security: [{ siweSession: [] }],
    middleware: [requireSession({ sql: d.sql, kind: "siwe" })] as const,
    request: { query: OffsetQuery },
    responses: dataResponses("A page of deposits, newest launch first", offsetList(MyDeposit), {
      401: errorResponse("not_authenticated: no live SIWE session cookie"),
    }),
  }),
});

const unavailable = () =>
  new HttpError("unavailable", {
    message: "deposit launches are not configured on this API (no chain or relayer)",
  });

/** The deposit-launch writes: create (SIWE), preview (open) and the session's deposits. */
export function registerLaunchWrites(app: OpenAPIHono<AppEnv>, d: LaunchWriteDeps) {
  const r = routes(d);
  const { sql } = d;

  app.openapi(r.create, async (c) => {
    if (!d.deposit) throw unavailable();
    const answer = await createDepositLaunch(d.deposit, {
      creator: siweSession(c).address,
      body: c.req.valid("json"),
      idempotencyKey: c.req.valid("header")["idempotency-key"],
      log: c.get("log"),
    });
    return c.json(answer.body, 201);
  });

  app.openapi(r.preview, async (c) => {
    if (!d.deposit) throw unavailable();
    const body = c.req.valid("json");
    const data = await previewLaunch({
      client: d.deposit.client,
      factory: d.deposit.factory,
      id: c.req.valid("param").id,
      deposits: body.deposits,
      action: body.action,
    });
    return c.json({ ok: true as const, data }, 200);
  });

  const launches = view(sql, d.viewsSchema, "launch");
  const depositors = view(sql, d.viewsSchema, "depositor");
  app.openapi(r.mine, async (c) => {
    const me = siweSession(c).address;
    const q = c.req.valid("query");
    const from = sql`from ${depositors} dp join ${launches} l on l.vault = dp.vault where dp.account = ${me}`;
    const [rows, [n]] = await readViews(() =>
      Promise.all([
        sql<
          Record<string, string | null>[]
        >`select l.id, l.vault, l.name, l.symbol, l.status, l.token,
          l.total_deposited, l.tokens_for_depositors, dp.principal, dp.claimed, dp.refunded ${from}
          order by l.created_block desc, l.id desc limit ${q.limit} offset ${q.offset}`,
        sql<{ total: string }[]>`select count(*) as total ${from}`,
      ]),
    );
    const items = rows.map((x) => ({
      launchId: dec(x.id as string),
      vault: x.vault as string,
      name: x.name ?? null,
      symbol: x.symbol ?? null,
      status: x.status as "open" | "closed" | "launched" | "refund",
      token: x.token ?? null,
      ...depositPosition(x as PositionRow),
    }));
    return c.json(
      {
        ok: true as const,
        data: { items, total: Number(n?.total ?? 0), limit: q.limit, offset: q.offset },
      },
      200,
    );
  });
}
