import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { view } from "../../lib/db/views.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { dec, decOrNull, isoFromUnix } from "../http/format.ts";
import { cachedRead, type ViewRouteDeps } from "../http/read-deps.ts";
import {
  Address,
  AddressInput,
  AddressParams,
  atIndexedBlock,
  dataResponses,
  errorResponse,
  IsoTime,
  OffsetQuery,
  offsetList,
  oneOf,
  Wei,
} from "../http/schemas.ts";
import { readViews } from "../http/views.ts";
import { depositPosition, PositionFields, type PositionRow } from "./position.ts";
import { LaunchParams } from "./schema.ts";

const STATUSES = ["open", "closed", "launched", "refund"] as const;

export const Launch = z
  .object({
    id: z
      .string()
      .regex(/^[0-9]+$/)
      .openapi({ description: "The factory's launch id" }),
    vault: Address,
    router: Address,
    treasury: Address,
    predictedToken: Address,
    token: Address.nullable().openapi({ description: "Set once launched" }),
    pair: Address.nullable(),
    tier: z.string(),
    creator: Address,
    name: z.string().nullable(),
    symbol: z.string().nullable(),
    closeTimestamp: IsoTime,
    buyTaxBps: z.number().int(),
    sellTaxBps: z.number().int(),
    status: z.enum(STATUSES),
    totalDeposited: Wei,
    depositorCount: z.number().int().nonnegative(),
    totalClaimed: Wei,
    totalRefunded: Wei,
    tokensForDepositors: Wei.nullable(),
    liquidityBnb: Wei.nullable(),
    liquidityTokens: Wei.nullable(),
    createdAt: IsoTime,
  })
  .openapi("Launch");

export const Depositor = z
  .object({ account: Address, principal: Wei, claimed: Wei, refunded: Wei })
  .openapi("Depositor");

export const UserLaunch = Launch.extend({
  created: z.boolean().openapi({ description: "The user created this launch" }),
  deposited: Wei.openapi({ description: "BNB the user ever deposited into it (sum of Deposited)" }),
  withdrawn: Wei.openapi({
    description: "BNB the user withdrew while it was open (sum of Withdrew)",
  }),
  ...PositionFields,
}).openapi("UserLaunch");

const listRoute = createRoute({
  method: "get",
  path: "/v2/launches",
  tags: ["launches"],
  summary: "Deposit-based launches, newest first",
  request: {
    query: OffsetQuery.extend({
      status: oneOf(STATUSES).optional(),
      tier: z
        .string()
        .regex(/^[0-9]{1,9}$/, "must be a tier number")
        .optional(),
      creator: AddressInput.optional(),
    }),
  },
  responses: dataResponses("A page of launches", atIndexedBlock(offsetList(Launch))),
});

const detailRoute = createRoute({
  method: "get",
  path: "/v2/launches/{id}",
  tags: ["launches"],
  summary: "One launch",
  request: { params: LaunchParams },
  responses: dataResponses("The launch", Launch, {
    404: errorResponse("No such launch is indexed"),
  }),
});

const depositorsRoute = createRoute({
  method: "get",
  path: "/v2/launches/{id}/depositors",
  tags: ["launches"],
  summary: "Depositors of a launch, largest principal first",
  request: { params: LaunchParams, query: OffsetQuery },
  responses: dataResponses("A page of depositors", atIndexedBlock(offsetList(Depositor)), {
    404: errorResponse("No such launch is indexed"),
  }),
});

const userRoute = createRoute({
  method: "get",
  path: "/v2/users/{address}/launches",
  tags: ["launches"],
  summary: "Launches a user created or deposited into, newest first, with the user's position",
  description:
    "Public (any address). Per launch: what the user deposited and withdrew, the principal left, the tokens allocated, claimed and claimable now, what is refundable, and the vesting progress; all figures from the indexed vault events and computed as the vault computes them (the same computation as GET /v2/users/me/deposits).",
  request: { params: AddressParams, query: OffsetQuery },
  responses: dataResponses("A page of launches", atIndexedBlock(offsetList(UserLaunch))),
});

type Row = Record<string, string | number | bigint | null>;

export function toLaunch(r: Row) {
  return {
    id: dec(r.id as string),
    vault: r.vault as string,
    router: r.router as string,
    treasury: r.treasury as string,
    predictedToken: r.predicted_token as string,
    token: r.token as string | null,
    pair: r.pair as string | null,
    tier: String(r.tier),
    creator: r.creator as string,
    name: r.name as string | null,
    symbol: r.symbol as string | null,
    closeTimestamp: isoFromUnix(r.close_timestamp as string),
    buyTaxBps: Number(r.buy_tax_bps),
    sellTaxBps: Number(r.sell_tax_bps),
    status: r.status as (typeof STATUSES)[number],
    totalDeposited: dec(r.total_deposited as string),
    depositorCount: Number(r.depositor_count),
    totalClaimed: dec(r.total_claimed as string),
    totalRefunded: dec(r.total_refunded as string),
    tokensForDepositors: decOrNull(r.tokens_for_depositors as string | null),
    liquidityBnb: decOrNull(r.liquidity_bnb as string | null),
    liquidityTokens: decOrNull(r.liquidity_tokens as string | null),
    createdAt: isoFromUnix(r.created_at as string),
  };
}

type Page = { limit: number; offset: number };

/** Offset-list `data` from a page query and a count query, run side by side. */
async function listPage<T>(
  rows: PromiseLike<Row[]>,
  count: PromiseLike<Row[]>,
  map: (r: Row) => T,
  q: Page,
) {
  const [r, [n]] = await readViews(() => Promise.all([rows, count]));
  return { items: r.map(map), total: Number(n?.total ?? 0), limit: q.limit, offset: q.offset };
}

/** The deposit-launch reads, from the `launch` and `depositor` views. */
export function registerLaunches(app: OpenAPIHono<AppEnv>, d: ViewRouteDeps) {
  const { sql } = d;
  const launches = view(sql, d.settings.viewsSchema, "launch");
  const depositors = view(sql, d.settings.viewsSchema, "depositor");
  const events = view(sql, d.settings.viewsSchema, "launch_event");
  const byId = (id: string) =>
    id.startsWith("0x") ? sql`vault = ${id}` : sql`id = ${id}::numeric`;
  const findLaunch = async (id: string) => {
    const [r] = await readViews(() => sql<Row[]>`select * from ${launches} where ${byId(id)}`);
    if (!r) throw new HttpError("not_found", { message: `no launch ${id} is indexed` });
    return r;
  };

  /** The block these reads reflect: header and envelope; read before the query. */
  const stamp = async (c: { header: (k: string, v: string) => void }) => {
    const { block } = await d.reads.tracker.current();
    if (block !== null) c.header("X-Indexed-Block", block);
    return block;
  };

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const indexedBlock = await stamp(c);
    const where = sql`where true
      ${q.status ? sql`and status = ${q.status}` : sql``}
      ${q.tier ? sql`and tier = ${Number(q.tier)}` : sql``}
      ${q.creator ? sql`and creator = ${q.creator}` : sql``}`;
    const data = await listPage(
      sql<Row[]>`select * from ${launches} ${where}
        order by created_block desc, id desc limit ${q.limit} offset ${q.offset}`,
      sql<Row[]>`select count(*) as total from ${launches} ${where}`,
      toLaunch,
      q,
    );
    return c.json({ ok: true as const, data: { ...data, indexedBlock } }, 200);
  });

  app.openapi(detailRoute, async (c) => {
    const { id } = c.req.valid("param");
    await stamp(c);
    return c.json({ ok: true as const, data: toLaunch(await findLaunch(id)) }, 200);
  });

  app.openapi(depositorsRoute, async (c) => {
    const { id } = c.req.valid("param");
    const q = c.req.valid("query");
    const indexedBlock = await stamp(c);
    const vault = (await findLaunch(id)).vault as string;
    const data = await listPage(
      sql<Row[]>`select * from ${depositors} where vault = ${vault}
        order by principal desc, account limit ${q.limit} offset ${q.offset}`,
      sql<Row[]>`select count(*) as total from ${depositors} where vault = ${vault}`,
      toDepositor,
      q,
    );
    return c.json({ ok: true as const, data: { ...data, indexedBlock } }, 200);
  });

  app.openapi(userRoute, async (c) => {
    const { address } = c.req.valid("param");
    const q = c.req.valid("query");
    // Cached per indexed generation (the answer reads only the views), as the lists are.
    return cachedRead(c, d.reads, async (state) => {
      // Deposited and withdrawn are the vault's events (the depositor row keeps their difference).
      // The user's vaults through the creator and account indexes, then each launch by its key:
      // the cost is the user's launches, not every launch (an `or` across the join scans all).
      const from = sql`from (select vault from ${launches} where creator = ${address}
        union select vault from ${depositors} where account = ${address}) mine
      join ${launches} l on l.vault = mine.vault
      left join ${depositors} dp on dp.vault = l.vault and dp.account = ${address}`;
      const data = await listPage(
        sql<Row[]>`with page as (select l.*, dp.principal, dp.claimed, dp.refunded ${from}
          order by l.created_block desc, l.id desc limit ${q.limit} offset ${q.offset}),
        flows as (select e.vault,
            coalesce(sum(e.amount) filter (where e.kind = 'deposited'), 0) as deposited,
            coalesce(sum(e.amount) filter (where e.kind = 'withdrew'), 0) as withdrawn
          from ${events} e where e.account = ${address}
            and e.vault in (select vault from page) group by e.vault)
        select page.*, coalesce(f.deposited, 0) as deposited, coalesce(f.withdrawn, 0) as withdrawn
        from page left join flows f on f.vault = page.vault
        order by page.created_block desc, page.id desc`,
        sql<Row[]>`select count(*) as total ${from}`,
        (r) => ({
          ...toLaunch(r),
          created: r.creator === address,
          deposited: dec(r.deposited as string),
          withdrawn: dec(r.withdrawn as string),
          ...depositPosition(r as unknown as PositionRow),
        }),
        q,
      );
      return { ok: true as const, data: { ...data, indexedBlock: state.block } };
    }) as never;
  });
}

function toDepositor(r: Row) {
  return {
    account: r.account as string,
    principal: dec(r.principal as string),
    claimed: dec(r.claimed as string),
    refunded: dec(r.refunded as string),
  };
}
