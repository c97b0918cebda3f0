import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { type Address as Addr, createPublicClient, http, type PublicClient } from "viem";
import { claimTransaction, dividendTokens, readClaimable } from "../../lib/dividends.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import type { ViewRouteDeps } from "../http/read-deps.ts";
import {
  Address,
  AddressParams,
  dataResponses,
  errorResponse,
  IndexedBlockField,
  jsonResponse,
  okEnvelope,
  Wei,
} from "../http/schemas.ts";
import { readViews } from "../http/views.ts";
import { DIVIDEND_LIMITS } from "../limits.ts";
import { sameOrigin } from "../middleware/same-origin/index.ts";
import { requireSession, siweSession } from "../middleware/session/index.ts";

const DividendItem = z
  .object({
    token: Address,
    name: z.string().nullable(),
    symbol: z.string().nullable(),
    claimableBnb: Wei.openapi({
      description: "The token's own claimableFee(address) at indexedBlock, wei (paid as WBNB)",
    }),
    claimedBnb: Wei.openapi({
      description: "What the address has claimed of this token (its FeeClaimed logs), wei",
    }),
  })
  .openapi("Dividend");

const Dividends = z
  .object({
    address: Address,
    autoClaim: z.boolean().openapi({
      description: "The keeper claims for this address (opted in with its SIWE session)",
    }),
    claimableBnb: Wei,
    claimedBnb: Wei,
    items: z.array(DividendItem),
    truncated: z.boolean().openapi({
      description: `More than ${DIVIDEND_LIMITS.maxTokensPerWallet} tokens: the first by address are shown`,
    }),
    indexedBlock: IndexedBlockField,
  })
  .openapi("Dividends");

const ClaimTransaction = z
  .object({
    address: Address,
    claimableBnb: Wei,
    tokens: z.array(Address),
    transaction: z
      .object({
        to: Address,
        data: z.string().regex(/^0x[0-9a-f]*$/),
        value: z.literal("0"),
        chainId: z.literal(56),
      })
      .nullable()
      .openapi({
        description:
          "Unsigned; any wallet may send it, the dividends go to `address`. Null: nothing to claim",
      }),
    indexedBlock: IndexedBlockField,
  })
  .openapi("DividendClaimTransaction");

const AutoClaim = z
  .object({ address: Address, autoClaim: z.boolean(), since: z.iso.datetime().nullable() })
  .openapi("DividendAutoClaim");

export type DividendRouteDeps = ViewRouteDeps & { client?: PublicClient };

/**
 * The holder's side of tax tokens, beside the other user routes: dividends claimable across the
 * service's tokens (the tokens' own views at the indexed block), the transaction that claims
 * them, and the opt-in that lets the keeper claim them (docs/dividends.md).
 *
 * @example
 * registerUserDividends(app, { sql, settings, reads });
 */
export function registerUserDividends(app: OpenAPIHono<AppEnv>, d: DividendRouteDeps) {
  const { sql } = d;
  const schema = d.settings.viewsSchema;
  const rpc = d.settings.rpcUrls[0];
  const client =
    d.client ?? (rpc ? (createPublicClient({ transport: http(rpc) }) as PublicClient) : undefined);

  /** The address's dividend tokens with what each owes it, at the indexed block. */
  async function owed(address: Addr) {
    if (!client)
      throw new HttpError("unavailable", { message: "no chain RPC is configured on this API" });
    const state = await d.reads.tracker.current();
    if (state.block === null) {
      throw new HttpError("unavailable", {
        message: "the chain index is not published yet; retry shortly",
      });
    }
    const tokens = await readViews(() =>
      dividendTokens(sql, schema, address, DIVIDEND_LIMITS.maxTokensPerWallet + 1),
    );
    const shown = tokens.slice(0, DIVIDEND_LIMITS.maxTokensPerWallet);
    const claimable = await readClaimable({
      client,
      pairs: shown.map((t) => ({ token: t.token, account: address })),
      blockNumber: BigInt(state.block),
    });
    const items = shown.map((t, i) => ({ ...t, claimable: claimable[i] as bigint }));
    return { items, truncated: tokens.length > shown.length, block: state.block };
  }

  const autoClaimOf = async (address: string) => {
    const [r] = await sql<
      { opted_in_at: Date }[]
    >`select opted_in_at from app.dividend_auto_claims where address = ${address}`;
    return r?.opted_in_at ?? null;
  };

  app.openapi(
    createRoute({
      method: "get",
      path: "/v2/users/{address}/dividends",
      tags: ["dividends"],
      summary:
        "Dividends an address can claim across the service's tax tokens, and what it claimed",
      description:
        "Public (any address). Per token whose holders were allocated dividends and that the address held: the token's own `claimableFee(address)` read at the indexed block, and the address's claims from the indexed `FeeClaimed` logs.",
      request: { params: AddressParams },
      responses: dataResponses("The address's dividends", Dividends, {
        503: errorResponse("No chain RPC is configured, or the index is not published yet"),
      }),
    }),
    async (c) => {
      const { address } = c.req.valid("param");
      const [o, since] = await Promise.all([owed(address), autoClaimOf(address)]);
      const sum = (f: (x: (typeof o.items)[number]) => bigint) =>
        o.items.reduce((s, x) => s + f(x), 0n).toString();
      return c.json(
        {
          ok: true as const,
          data: {
            address,
            autoClaim: since !== null,
            claimableBnb: sum((x) => x.claimable),
            claimedBnb: sum((x) => x.claimed),
            items: o.items.map((x) => ({
              token: x.token,
              name: x.name,
              symbol: x.symbol,
              claimableBnb: x.claimable.toString(),
              claimedBnb: x.claimed.toString(),
            })),
            truncated: o.truncated,
            indexedBlock: o.block,
          },
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v2/users/{address}/dividends/claim-transaction",
      tags: ["dividends"],
      summary:
        "The unsigned transaction that claims an address's dividends on every token that owes it some",
      description:
        "One transaction: `claimFee([address])` on the token when one owes, else Multicall3 `aggregate3` over each. four.meme lets anyone claim on a holder's behalf (`claimFee(address[])`), so any wallet may send it; the dividends go to `address`. Built from the claimable amounts at the indexed block.",
      request: { params: AddressParams },
      responses: dataResponses("The transaction", ClaimTransaction, {
        503: errorResponse("No chain RPC is configured, or the index is not published yet"),
      }),
    }),
    async (c) => {
      const { address } = c.req.valid("param");
      const o = await owed(address);
      const due = o.items.filter((x) => x.claimable > 0n);
      const tx =
        due.length === 0
          ? null
          : claimTransaction(
              address,
              due.map((x) => x.token),
            );
      return c.json(
        {
          ok: true as const,
          data: {
            address,
            claimableBnb: due.reduce((s, x) => s + x.claimable, 0n).toString(),
            tokens: due.map((x) => x.token),
            transaction: tx && { ...tx, value: "0" as const, chainId: 56 as const },
            indexedBlock: o.block,
          },
        },
        200,
      );
    },
  );

  const session = [
    requireSession({ sql, kind: "siwe" }),
    sameOrigin({ origins: [d.settings.webUrl, d.settings.apiUrl] }),
  ];
  for (const method of ["put", "delete"] as const) {
    app.openapi(
      createRoute({
        method,
        path: "/v2/users/me/dividends/auto-claim",
        tags: ["dividends"],
        summary:
          method === "put"
            ? "Let the keeper claim the signed-in wallet's dividends"
            : "Stop the keeper claiming the signed-in wallet's dividends",
        description:
          "The signed-in wallet (its SIWE session) opts in or out. Opted in, the keeper sends `claimFee(accounts)` for it on each token whose dividends for it reach the keeper's minimum, within the keeper's daily gas budget; the dividends go to the wallet, the gas is the service's.",
        security: [{ siweSession: [] }],
        middleware: session,
        responses: {
          200: jsonResponse("The wallet's choice", okEnvelope(AutoClaim)),
          401: errorResponse("not_authenticated: no live SIWE session cookie"),
          403: errorResponse("not_authorized: a cross-site Origin"),
        },
      }),
      async (c) => {
        const { address } = siweSession(c);
        const a = address.toLowerCase();
        if (method === "put") {
          await sql`insert into app.dividend_auto_claims (address) values (${a}) on conflict do nothing`;
        } else {
          await sql`delete from app.dividend_auto_claims where address = ${a}`;
        }
        const since = await autoClaimOf(a);
        return c.json(
          {
            ok: true as const,
            data: { address: a, autoClaim: since !== null, since: since?.toISOString() ?? null },
          },
          200,
        );
      },
    );
  }
}
