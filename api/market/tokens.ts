import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { cachedResponses, REVALIDATE, sendCached } from "../http/read-cache.ts";
import type { ViewRouteDeps } from "../http/read-deps.ts";
import {
  AddressInput,
  AddressParams,
  errorResponse,
  IndexedBlockField,
  OffsetQuery,
  offsetList,
} from "../http/schemas.ts";
import { readViews } from "../http/views.ts";
import { MARKET_LIMITS } from "../limits.ts";
import { pageOf, type Rankings } from "./ranking.ts";
import {
  filteredAddresses,
  TOKEN_SORTS,
  type TokenKeyset,
  tokenPage,
  tokenRecords,
} from "./token-query.ts";
import { Token, toTokenRecord } from "./token-record.ts";

export { Token };

/** `newest` is the name of `new` in the first version of this route. */
const SORT_VALUES = [...TOKEN_SORTS, "newest"] as const;
const SORT_ALIAS = { newest: "new" } as const;

const TokenList = offsetList(Token).extend({
  nextCursor: z.string().nullable().openapi({
    description: "Pass back as `cursor` for the next page (keyset: stable while tokens arrive)",
  }),
  indexedBlock: IndexedBlockField,
});

const listRoute = createRoute({
  method: "get",
  path: "/tokens",
  tags: ["tokens"],
  summary: "Tokens of the service: search, filter, sort, page",
  description:
    "Sorts: `new` (registration order), `marketCap` (BNB), `volume24h` (BNB traded in the rolling 24 hours), `volume` (all-time BNB volume), `taxIncome` (BNB the token's tax brought its treasury and its holders: GET /tokens/{address}/tax `incomeBnb`), `trending` (over the 24 hourly UTC buckets ending with the current one: each bucket's BNB volume weighted by recency, 24/24 for the current hour down to 1/24, summed and floored, times the trades in those buckets). Ties break on the address. Page with `cursor` (stable) or `offset`. The 24-hour window ends at the newest indexed block's time.",
  request: {
    query: OffsetQuery.extend({
      sort: z
        .enum(SORT_VALUES, { error: `must be one of ${TOKEN_SORTS.join(", ")}` })
        .default("new")
        .openapi({ description: "`newest` is an accepted alias of `new`" }),
      order: z
        .enum(["desc", "asc"], { error: "must be desc or asc" })
        .default("desc")
        .openapi({ description: "desc (largest or newest first) or asc" }),
      status: z
        .enum(["registered", "curve", "graduated"], {
          error: "must be registered, curve or graduated",
        })
        .optional(),
      q: z
        .string()
        .trim()
        .min(1, "must not be empty")
        .max(
          MARKET_LIMITS.maxSearchLength,
          `must be at most ${MARKET_LIMITS.maxSearchLength} characters`,
        )
        .optional()
        .openapi({ description: "Name or symbol prefix (case-insensitive), or a token address" }),
      creator: AddressInput.optional().openapi({ description: "Tokens created by this address" }),
      cursor: z.string().optional().openapi({ description: "`nextCursor` of the previous page" }),
    }),
  },
  responses: cachedResponses("A page of tokens", TokenList),
});

const detailRoute = createRoute({
  method: "get",
  path: "/tokens/{address}",
  tags: ["tokens"],
  summary: "One token: prices in BNB and USD, 24-hour figures, liquidity, curve progress, agent",
  request: { params: AddressParams },
  responses: cachedResponses("The token", Token, {
    404: errorResponse("Not a token of the service, or not indexed yet"),
  }),
});

type Keyset = TokenKeyset & { s: string; o: string };

function encodeKeyset(k: Keyset): string {
  return Buffer.from(JSON.stringify(k)).toString("base64url");
}

/** A cursor of this sort and order, or a 400. */
function decodeKeyset(cursor: string, sort: string, order: string): TokenKeyset {
  let k: Partial<Keyset> = {};
  try {
    if (/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) {
      k = JSON.parse(Buffer.from(cursor, "base64url").toString());
    }
  } catch {}
  const valid =
    typeof k.k === "string" &&
    /^[0-9]{1,78}$/.test(k.k) &&
    typeof k.a === "string" &&
    /^0x[0-9a-f]{40}$/.test(k.a);
  if (!valid || k.s !== sort || k.o !== order) {
    throw new HttpError("validation_failed", {
      message: "cursor is malformed or belongs to another sort: pass back nextCursor as received",
      details: [{ path: "cursor", message: "not a cursor of this sort and order" }],
    });
  }
  return { k: k.k as string, a: k.a as string };
}

export type TokenRouteDeps = ViewRouteDeps & { rankings: Rankings };

/** `GET /tokens` and `GET /tokens/{address}`, from the token, trade and feed views. */
export function registerTokens(app: OpenAPIHono<AppEnv>, d: TokenRouteDeps) {
  const { sql, settings } = d;
  const { tracker, cache } = d.reads;
  const { rankings } = d;
  const schema = settings.viewsSchema;
  const records = async (addresses: string[], at: number) => {
    const rows = await tokenRecords(sql, schema, addresses, at);
    const byAddress = new Map(rows.map((r) => [r.address as string, r]));
    const o = { now: at, fallbackMaxRaising: settings.curveMaxRaisingWei, webUrl: settings.webUrl };
    return addresses.flatMap((a) => {
      const r = byAddress.get(a);
      return r ? [toTokenRecord(r, o)] : [];
    });
  };

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const sort = (
      q.sort in SORT_ALIAS ? SORT_ALIAS[q.sort as keyof typeof SORT_ALIAS] : q.sort
    ) as (typeof TOKEN_SORTS)[number];
    if (q.cursor !== undefined && q.offset !== 0) {
      throw new HttpError("validation_failed", {
        message: "cursor and offset are exclusive",
        details: [{ path: "offset", message: "must be 0 with a cursor" }],
      });
    }
    const after = q.cursor === undefined ? undefined : decodeKeyset(q.cursor, sort, q.order);
    const state = await tracker.current();
    const at = state.time ?? Math.floor(Date.now() / 1000);
    const filter = { status: q.status, q: q.q, creator: q.creator };
    const read = async () => {
      let keys: { address: string; k: string }[];
      let total: number;
      if (sort === "volume24h" || sort === "trending") {
        // From the ranking kept per generation: an aggregate over every token traded in 24 h.
        const [ranking, only] = await Promise.all([
          rankings.get(sort, state, at),
          q.q === undefined && q.creator === undefined
            ? undefined
            : filteredAddresses(sql, schema, filter).then((r) => new Set(r.map((x) => x.address))),
        ]);
        const page = pageOf(ranking, {
          desc: q.order === "desc",
          after,
          offset: q.offset,
          limit: q.limit,
          keep: (r) => (!q.status || r.status === q.status) && (!only || only.has(r.address)),
        });
        keys = page.rows.map((r) => ({ address: r.address, k: r.k.toString() }));
        total = page.total;
      } else {
        const { page, count } = tokenPage(sql, schema, {
          sort,
          desc: q.order === "desc",
          now: at,
          filter,
          after,
          limit: q.limit,
          offset: q.offset,
        });
        const [rows, [n]] = await Promise.all([
          sql<{ address: string; k: string }[]>`${page}`,
          sql<{ n: number }[]>`${count}`,
        ]);
        keys = rows;
        total = n?.n ?? 0;
      }
      const shown = keys.slice(0, q.limit);
      const last = shown.at(-1);
      return {
        ok: true as const,
        data: {
          items: await records(
            shown.map((k) => k.address),
            at,
          ),
          total,
          limit: q.limit,
          offset: q.offset,
          nextCursor:
            keys.length > q.limit && last
              ? encodeKeyset({ s: sort, o: q.order, k: String(last.k), a: last.address })
              : null,
          indexedBlock: state.block,
        },
      };
    };
    const cached = await readViews(() => cache.get(c.req.url, state, read));
    return sendCached(c, cached, REVALIDATE) as never;
  });

  app.openapi(detailRoute, async (c) => {
    const { address } = c.req.valid("param");
    const state = await tracker.current();
    const at = state.time ?? Math.floor(Date.now() / 1000);
    const cached = await readViews(() =>
      cache.get(c.req.url, state, async () => {
        const [r] = await records([address], at);
        if (!r) throw new HttpError("not_found", { message: `no token ${address} is indexed` });
        return { ok: true as const, data: r };
      }),
    );
    return sendCached(c, cached, REVALIDATE) as never;
  });
}
