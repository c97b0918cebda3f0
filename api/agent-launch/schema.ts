import { z } from "@hono/zod-openapi";

/** LaunchRequest (api/AGENT.md): the body of POST /v2/agents/launch and the MCP tool's input. */
export const LaunchRequestShape = {
  agentId: z.string().min(1).max(64).describe("must equal the identity of the authenticated agent"),
  name: z.string().min(1).max(32),
  ticker: z.string().regex(/^[a-zA-Z0-9]{1,10}$/, "must be 1-10 characters of [a-zA-Z0-9]"),
  description: z.string().min(10).max(500),
  imageUrl: z.url().max(2048).describe("https URL of a png, jpeg or webp answering 200"),
  patronX: z.string().max(64).nullable().optional(),
  chainId: z.literal(56, { error: "must be 56" }),
  firstBuyWei: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,29})$/, "must be a whole number of wei as a decimal string")
    .default("0")
    .describe(
      "BNB (wei) the agent's wallet spends buying its own token inside the creation transaction (four.meme's preSale), at most the service's cap; the service funds it; default 0",
    ),
  antiSniper: z
    .boolean()
    .default(true)
    .describe(
      "four.meme's AntiSniperFeeMode (feePlan): buys pay an extra fee that starts high in the token's first block and falls block by block; default true",
    ),
};
export const LaunchRequest = z.object(LaunchRequestShape).openapi("LaunchRequest");
export type LaunchRequestBody = z.infer<typeof LaunchRequest>;

const Address = z.string().regex(/^0x[0-9a-f]{40}$/);
const Wei = z.string().regex(/^[0-9]+$/);

/** The agent's first buy at launch, from createToken's TokenPurchase (wei strings). */
export const FirstBuy = z
  .object({
    tokens: Wei.describe("tokens bought (18 decimals)"),
    costWei: Wei.describe("BNB paid on the curve for them, before the fee"),
    feeWei: Wei.describe("the curve's trading fee on it"),
  })
  .openapi("FirstBuy");
export const LaunchResponse = z
  .object({
    ok: z.literal(true),
    data: z.object({
      agentId: z.string(),
      tokenAddress: Address,
      txHash: z.string().regex(/^0x[0-9a-f]{64}$/),
      eip8004TokenId: z.string(),
      treasuryAddress: Address,
      walletAddress: Address,
      agentPageUrl: z.url(),
      launchpadUrl: z.url(),
      antiSniper: z.boolean().describe("whether the token was created in AntiSniperFeeMode"),
      firstBuy: FirstBuy.nullable().describe(
        "the first buy made inside createToken; null without one",
      ),
    }),
  })
  .openapi("LaunchResponse");
export type LaunchResponseBody = z.infer<typeof LaunchResponse>;

/** The launch endpoint's error object (api/AGENT.md "Errors"). */
export const LaunchError = z
  .object({
    ok: z.literal(false),
    error: z.string().describe("a code: AGENT_AUTH_MISSING, AGENT_AUTH_INVALID, ..."),
    detail: z.string().optional(),
    code: z.string().optional().describe("a finer reason, e.g. IMAGE_NOT_200"),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    launchId: z.string().optional().openapi({
      description:
        "On LAUNCHPAD_ERROR and ORCHESTRATOR_UNAVAIL: the launch attempt's id. `detail` says what failed in fixed words per code, never the cause; quote this id to the operator, who sees the cause",
    }),
  })
  .openapi("LaunchError");
