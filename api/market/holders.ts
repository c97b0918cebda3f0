import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { view } from "../../lib/db/views.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { malformedCursor, pageOf } from "../http/cursor.ts";
import { cachedResponses } from "../http/read-cache.ts";
import { cachedRead, type ViewRouteDeps } from "../http/read-deps.ts";
import {
  Address,
  AddressParams,
  atIndexedBlock,
  cursorList,
  errorResponse,
  flagQuery,
  pageLimit,
  Wei,
} from "../http/schemas.ts";

export const Holder = z
  .object({
    account: Address,
    balance: Wei.openapi({ description: "Token units (18 decimals)" }),
    shareBps: z
      .number()
      .int()
      .min(0)
      .max(10_000)
      .openapi({ description: "balance / totalSupply in basis points, floored" }),
    role: z.enum(["curve", "pair", "vault", "burn", "tax"]).nullable().openapi({
      description:
        "Accounts holding for the market (bonding curve, DEX pair, launch vault, burn address, the token's own kept tax); null for holders",
    }),
  })
  .openapi("Holder");

const route = createRoute({
  method: "get",
  path: "/tokens/{address}/holders",
  tags: ["tokens"],
  summary: "Top holders of a token, largest balance first",
  description:
    "Cursor pages over (balance, account), both descending. Balances move with trades, so a holder whose balance changes between pages can appear twice or not at all; each page is exact as of its read.",
  request: {
    params: AddressParams,
    query: z.object({
      limit: pageLimit("holders"),
      cursor: z.string().optional().openapi({ description: "`nextCursor` of the previous page" }),
      market: flagQuery("false leaves out accounts that hold for the market (default true)"),
    }),
  },
  responses: cachedResponses("A page of holders", atIndexedBlock(cursorList(Holder)), {
    404: errorResponse("Not a token of the service"),
  }),
});

function decode(cursor: string): { b: string; a: string } {
  let k: { b?: unknown; a?: unknown } = {};
  try {
    if (/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) {
      k = JSON.parse(Buffer.from(cursor, "base64url").toString());
    }
  } catch {}
  if (
    typeof k.b !== "string" ||
    !/^[0-9]{1,78}$/.test(k.b) ||
    typeof k.a !== "string" ||
    !/^0x[0-9a-f]{40}$/.test(k.a)
  ) {
    throw malformedCursor();
  }
  return { b: k.b, a: k.a };
}

/** `GET /tokens/{address}/holders`, from the `holder` view (index token, balance, account). */
export function registerHolders(app: OpenAPIHono<AppEnv>, d: ViewRouteDeps) {
  const { sql } = d;
  const tokens = view(sql, d.settings.viewsSchema, "token");
  const holders = view(sql, d.settings.viewsSchema, "holder");
  app.openapi(route, async (c) => {
    const { address } = c.req.valid("param");
    const q = c.req.valid("query");
    const after = q.cursor === undefined ? undefined : decode(q.cursor);
    return cachedRead(c, d.reads, async (state) => {
      const [[tok], rows] = await Promise.all([
        sql<
          { total_supply: string }[]
        >`select total_supply from ${tokens} where address = ${address}`,
        sql<{ account: string; balance: string; role: string | null }[]>`
          select h.account, h.balance::text as balance, h.role from ${holders} h
          where h.token = ${address} and h.balance > 0
          ${q.market === false ? sql`and h.role is null` : sql``}
          ${after ? sql`and (h.balance, h.account) < (${after.b}::numeric, ${after.a})` : sql``}
          order by h.balance desc, h.account desc limit ${q.limit + 1}`,
      ]);
      if (!tok) throw new HttpError("not_found", { message: `no token ${address} is indexed` });
      const supply = BigInt(tok.total_supply);
      const { page, nextCursor } = pageOf(rows, q.limit, (last) =>
        Buffer.from(JSON.stringify({ b: last.balance, a: last.account })).toString("base64url"),
      );
      const items = page.map((r) => ({
        account: r.account,
        balance: r.balance,
        shareBps: supply === 0n ? 0 : Number((BigInt(r.balance) * 10_000n) / supply),
        role: r.role as "curve" | "pair" | "vault" | "burn" | "tax" | null,
      }));
      return { ok: true as const, data: { items, nextCursor, indexedBlock: state.block } };
    }) as never;
  });
}
