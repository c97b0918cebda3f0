import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import { view } from "../../lib/db/views.ts";
import { clientBucket } from "../../lib/http/client-ip.ts";
import { setRelayerSpendSource } from "../../lib/metrics/relayer.ts";
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
  LaunchTransaction,
  MyDeposit,
  PreviewBody,
} from "./schema.ts";
import { launchTransaction } from "./transaction.ts";

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
      "The relayer sends the factory's createLaunch with the session's wallet as creator (owner of the launch's treasury Safe), pays its gas, and waits for LaunchCreated. 5 per hour per wallet; the relayer pays for at most 10 launches an hour per client address (an IPv6 /64 is one; the default) and up to the operator's daily budget, 429 with Retry-After past either (POST /v2/launches/transaction is the way to pay for it yourself). An optional Idempotency-Key (1-200 characters) replays the first answer; a retry after a crash re-sends the same transaction, never a second launch. The launch then appears on GET /v2/launches/{id} once indexed.",
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
      429: errorResponse(
        "rate_limited: more than 5 launches per hour for this wallet, or past the relayer's budget (this client's hour, or the day)",
      ),
      502: errorResponse(
        "upstream_error: the relayer's createLaunch failed; nothing was created. The message is fixed, never the cause; quote `launchRequestId` to the operator",
      ),
      503: errorResponse(
        "unavailable: the chain could not be reached or the transaction is not mined yet (then with `launchRequestId`); retry with the same Idempotency-Key",
      ),
    },
  }),
  transaction: createRoute({
    method: "post",
    path: "/v2/launches/transaction",
    tags: ["launches"],
    summary: "The createLaunch transaction for the signed-in wallet to send and pay itself",
    description:
      "The same body and checks as POST /v2/launches, but nothing is sent: the answer is the unsigned transaction (to the factory, the wallet as creator) for the wallet to sign and send, paying its own gas; the relayer's budget does not apply. The launch is the receipt's LaunchCreated log (topics[0] = launchCreatedTopic, topics[1] = the launch id), on GET /v2/launches/{id} once indexed.",
    security: [{ siweSession: [] }],
    middleware: [requireSession({ sql: d.sql, kind: "siwe" })] as const,
    request: { body: jsonBody(CreateLaunchBody) },
    responses: {
      200: jsonResponse("The transaction to send", okEnvelope(LaunchTransaction)),
      400: errorResponse(
        "validation_failed: a field (tier, closeTimestamp, taxes, image, socials) is invalid",
      ),
      401: errorResponse("not_authenticated: no live SIWE session cookie"),
      502: errorResponse("upstream_error: createLaunch would revert"),
      503: errorResponse("unavailable: the chain could not be read; retry"),
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

/**
 * The deposit-launch writes: create (SIWE, the relayer pays), the transaction a wallet sends
 * itself (SIWE), preview (open) and the session's deposits.
 */
export function registerLaunchWrites(app: OpenAPIHono<AppEnv>, d: LaunchWriteDeps) {
  const r = routes(d);
  const { sql } = d;
  if (d.deposit) setRelayerSpendSource({ sql, budget: d.deposit.budget });

  app.openapi(r.create, async (c) => {
    if (!d.deposit) throw unavailable();
    const answer = await createDepositLaunch(d.deposit, {
      creator: siweSession(c).address,
      client: clientBucket(c.get("clientIp")),
      body: c.req.valid("json"),
      idempotencyKey: c.req.valid("header")["idempotency-key"],
      log: c.get("log"),
    });
    return c.json(answer.body, 201);
  });

  app.openapi(r.transaction, async (c) => {
    if (!d.deposit) throw unavailable();
    const data = await launchTransaction(d.deposit, {
      creator: siweSession(c).address,
      body: c.req.valid("json"),
    });
    return c.json({ ok: true as const, data }, 200);
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
