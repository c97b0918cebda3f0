import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { readLaunchReport } from "../../lib/market/launch-report.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { cachedResponses } from "../http/read-cache.ts";
import { cachedRead, type ViewRouteDeps } from "../http/read-deps.ts";
import { Address, AddressParams, errorResponse, IsoTime, TxHash, Wei } from "../http/schemas.ts";

const Block = z.string().regex(/^[0-9]+$/);
const Bps = z.number().int().min(0).max(10_000);

const Funding = z.object({
  funder: Address,
  amount: Wei,
  blockNumber: Block,
  txHash: TxHash,
});

const Buys = {
  buys: z.number().int().min(1),
  firstBlockOffset: z
    .number()
    .int()
    .min(0)
    .openapi({ description: "Blocks after the creation block of its first buy (0: that block)" }),
  tokenAmount: Wei.openapi({ description: "Tokens bought in the window (18 decimals)" }),
  bnbAmount: Wei.openapi({ description: "BNB paid on the curve for them, before fees" }),
  shareBps: Bps.openapi({ description: "tokenAmount / total supply, basis points, floored" }),
};

export const LaunchReport = z
  .object({
    token: Address,
    creator: Address,
    createdBlock: Block,
    createdAt: IsoTime,
    createdTx: TxHash,
    antiSniper: z.boolean().nullable().openapi({
      description: "Created in four.meme's AntiSniperFeeMode (its _tokenInfoEx1s.feeSetting > 0)",
    }),
    windowBlocks: z.number().int(),
    windowEndBlock: Block,
    fundingLookbackBlocks: z.number().int(),
    final: z.boolean().openapi({
      description: "The index is past windowEndBlock: the report no longer changes",
    }),
    indexedBlock: Block,
    totalSupply: Wei,
    creatorBuy: z.object(Buys).nullable().openapi({
      description:
        "The creator's (the agent wallet's) own buys in the window, its first buy at launch among them",
    }),
    buyers: z.array(
      z.object({
        account: Address,
        ...Buys,
        fundedBy: z.array(Funding).openapi({
          description:
            "BNB sent to it by a plain transaction in the fundingLookbackBlocks before its first buy, or earlier in that block",
        }),
      }),
    ),
    bundles: z.array(
      z.object({
        funder: Address,
        funderIsCreator: z.boolean(),
        wallets: z.array(Address),
        fundedWei: Wei,
        tokenAmount: Wei,
        bnbAmount: Wei,
        shareBps: Bps,
      }),
    ),
    totals: z.object({
      buyers: z.number().int(),
      tokenAmount: Wei,
      bnbAmount: Wei,
      shareBps: Bps,
      bundledWallets: z.number().int(),
      bundledTokenAmount: Wei,
      bundledShareBps: Bps,
    }),
  })
  .openapi("LaunchReport");

const route = createRoute({
  method: "get",
  path: "/tokens/{address}/launch-report",
  tags: ["tokens"],
  summary: "Who bought an agent token in its first blocks, and which of them one address funded",
  description:
    "The curve buys in the creation block and the windowBlocks after it, per buyer, with each one's share of the supply and the BNB sent to it just before its first buy; buyers funded by one address are a bundle; the creator's own buys are apart. Final once the index is past the window.",
  request: { params: AddressParams },
  responses: cachedResponses("The launch report", LaunchReport, {
    404: errorResponse("No created agent token at this address"),
  }),
});

/** `GET /tokens/{address}/launch-report` (lib/market/launch-report.ts over the views). */
export function registerLaunchReport(app: OpenAPIHono<AppEnv>, d: ViewRouteDeps) {
  app.openapi(route, async (c) => {
    const { address } = c.req.valid("param");
    return cachedRead(c, d.reads, async (state) => {
      const report = await readLaunchReport({
        sql: d.sql,
        schema: d.settings.viewsSchema,
        token: address,
        indexedBlock: BigInt(state.block ?? 0),
      });
      if (!report)
        throw new HttpError("not_found", {
          message: `no agent token created at ${address} is indexed`,
        });
      return { ok: true as const, data: report };
    }) as never;
  });
}
