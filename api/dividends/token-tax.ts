import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { view } from "../../lib/db/views.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { cachedResponses } from "../http/read-cache.ts";
import { cachedRead, type ViewRouteDeps } from "../http/read-deps.ts";
import { Address, AddressParams, errorResponse, IndexedBlockField, Wei } from "../http/schemas.ts";

export const TokenTax = z
  .object({
    token: Address,
    dispatches: z.number().int().openapi({ description: "`FeeDispatched` logs of the token" }),
    taxDispatched: z
      .object({
        treasury: Wei,
        holders: Wei,
        burn: Wei,
        liquidity: Wei,
        total: Wei,
      })
      .openapi({
        description:
          "The tax the token dispatched, token units, by allocation (amountFounder, amountHolder, amountBurn, amountLiquidity)",
      }),
    treasuryBnb: Wei.openapi({
      description: "The treasury's share, paid in BNB at each dispatch (sum of quoteFounder), wei",
    }),
    dividends: z
      .object({
        accruedBnb: Wei.openapi({
          description: "Allocated to holders (sum of quoteHolder; the token's feeHolder), wei",
        }),
        claimedBnb: Wei.openapi({
          description: "Claimed by or for holders (sum of FeeClaimed), wei",
        }),
        unclaimedBnb: Wei.openapi({
          description:
            "accrued - claimed: the WBNB the token holds for its holders. Their claimableFee adds up to this less the rounding the token keeps",
        }),
        claims: z.number().int(),
      })
      .openapi({
        description: "Holders' dividends (four.meme's holder allocation), in BNB (paid as WBNB)",
      }),
    incomeBnb: Wei.openapi({
      description: "treasuryBnb + dividends.accruedBnb: what the `taxIncome` sort orders by",
    }),
    indexedBlock: IndexedBlockField,
  })
  .openapi("TokenTax");

const route = createRoute({
  method: "get",
  path: "/tokens/{address}/tax",
  tags: ["tokens"],
  summary:
    "A token's tax income: dispatched, the treasury's share, holders' dividends accrued, claimed and unclaimed",
  description:
    "Sums of the token's own `FeeDispatched` and `FeeClaimed` logs (four.meme TaxToken, docs/dividends.md), as indexed. Zeros before its first dispatch.",
  request: { params: AddressParams },
  responses: cachedResponses("The token's tax figures", TokenTax, {
    404: errorResponse("Not a token of the service"),
  }),
});

type Row = {
  dispatch_count: number;
  amount_founder: string;
  amount_holder: string;
  amount_burn: string;
  amount_liquidity: string;
  quote_founder: string;
  quote_holder: string;
  income_bnb: string;
  claim_count: number;
  claimed: string;
};

/** `GET /tokens/{address}/tax`, from the `token_tax` view. */
export function registerTokenTax(app: OpenAPIHono<AppEnv>, d: ViewRouteDeps) {
  const { sql } = d;
  const tokens = view(sql, d.settings.viewsSchema, "token");
  const taxes = view(sql, d.settings.viewsSchema, "token_tax");
  app.openapi(route, async (c) => {
    const { address } = c.req.valid("param");
    return cachedRead(c, d.reads, async (state) => {
      const [tok] = await sql<(Partial<Row> & { address: string })[]>`select t.address,
          x.dispatch_count, x.amount_founder::text, x.amount_holder::text, x.amount_burn::text,
          x.amount_liquidity::text, x.quote_founder::text, x.quote_holder::text,
          x.income_bnb::text, x.claim_count, x.claimed::text
        from ${tokens} t left join ${taxes} x on x.token = t.address where t.address = ${address}`;
      if (!tok) throw new HttpError("not_found", { message: `no token ${address} is indexed` });
      const n = (v: string | undefined | null) => BigInt(v ?? "0");
      const [f, h, b, l] = [
        tok.amount_founder,
        tok.amount_holder,
        tok.amount_burn,
        tok.amount_liquidity,
      ].map(n) as [bigint, bigint, bigint, bigint];
      const data = {
        token: tok.address,
        dispatches: tok.dispatch_count ?? 0,
        taxDispatched: {
          treasury: f.toString(),
          holders: h.toString(),
          burn: b.toString(),
          liquidity: l.toString(),
          total: (f + h + b + l).toString(),
        },
        treasuryBnb: n(tok.quote_founder).toString(),
        dividends: {
          accruedBnb: n(tok.quote_holder).toString(),
          claimedBnb: n(tok.claimed).toString(),
          unclaimedBnb: (n(tok.quote_holder) - n(tok.claimed)).toString(),
          claims: tok.claim_count ?? 0,
        },
        incomeBnb: n(tok.income_bnb).toString(),
        indexedBlock: state.block,
      };
      return { ok: true as const, data };
    }) as never;
  });
}
