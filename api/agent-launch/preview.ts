import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import { checkImage } from "../../lib/image/check.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import { AGENT_KEY_SECURITY, jsonBody, jsonResponse, okEnvelope } from "../http/schemas.ts";
import type { AgentAuthEnv } from "../middleware/agent-auth/index.ts";
import {
  launchBodyHook,
  launchErrorResponse,
  launchGuardErrors,
  launchGuards,
  renderLaunchError,
} from "./routes.ts";
import { LaunchRequest } from "./schema.ts";
import { checkFirstBuy } from "./service.ts";

const Address = z.string().regex(/^0x[0-9a-f]{40}$/);
const Uint = z.string().regex(/^[0-9]+$/);

export const AgentLaunchPreview = z
  .object({
    agentId: z.string(),
    walletAddress: Address.openapi({ description: "The agent wallet the launch uses" }),
    treasuryAddress: Address.openapi({ description: "The treasury Safe's CREATE2 address" }),
    tokenAddress: Address.nullable().openapi({
      description:
        "The token TokenManager2 creates: known once an earlier attempt got four.meme's signed create args; null until then",
    }),
    pairAddress: Address.nullable().openapi({ description: "The DEX pair of tokenAddress" }),
    tokenTaxInfo: z
      .object({
        feeRate: z.number().int(),
        burnRate: z.number().int(),
        divideRate: z.number().int(),
        liquidityRate: z.number().int(),
        recipientRate: z.number().int(),
        recipientAddress: Address,
        minSharing: z.number().int(),
      })
      .openapi({
        description:
          "The token's tax terms as four.meme's create API takes them (percent): feeRate on every DEX buy and sell after graduation, split by the four rates; the recipient is the treasury",
      }),
    antiSniper: z.boolean().openapi({
      description: "Whether the token would be created in AntiSniperFeeMode (four.meme's feePlan)",
    }),
    firstBuy: z
      .object({
        bnbWei: Uint.openapi({ description: "The first buy asked for: four.meme's preSale" }),
        valueWei: Uint.openapi({
          description:
            "What createToken carries for it beyond the launch fee: the preSale and its trading fee (the contract refunds what the buy does not spend)",
        }),
        tokens: Uint.nullable().openapi({
          description:
            "Tokens it would buy on a fresh curve, by TokenManager2's calcBuyAmount; null while no BNB-raise token exists to read the curve from",
        }),
        costWei: Uint.nullable().openapi({ description: "calcBuyCost of those tokens" }),
        feeWei: Uint.nullable().openapi({ description: "calcTradingFee of that cost" }),
      })
      .nullable()
      .openapi({ description: "null without a first buy" }),
    launchFeeWei: Uint,
    gasPriceWei: Uint,
    transactions: z.array(
      z.object({
        step: z.enum(["fund", "treasury", "identity", "register", "create"]),
        from: Address,
        to: Address,
        valueWei: Uint,
        gas: Uint,
        basis: z.enum(["estimated", "budget"]).openapi({
          description:
            "estimated: eth_estimateGas; budget: a fixed allowance (createToken: the gas the wallet is funded for; the registry entry: before the token exists)",
        }),
      }),
    ),
    totalGas: Uint,
    relayerSpendWei: Uint.openapi({
      description: "BNB the relayer would send: the wallet's funding and its own gas",
    }),
  })
  .openapi("AgentLaunchPreview");
export type AgentLaunchPreviewBody = z.infer<typeof AgentLaunchPreview>;

/** What a launch request asks of the token besides its display fields. */
export type LaunchAsked = { firstBuyWei: bigint; antiSniper: boolean };

export type LaunchPreviewDeps = {
  sql: Sql;
  /** Shared with the launch: requests per key per minute (0: off). */
  perKeyPerMinute?: number;
  /** Shared with the launch: the most wei a first buy may spend. */
  firstBuyMaxWei: bigint;
  trustedImageOrigins: string[];
  preview: (agentId: string, asked: LaunchAsked) => Promise<AgentLaunchPreviewBody>;
};

const previewRoute = (d: LaunchPreviewDeps) =>
  createRoute({
    method: "post",
    path: "/v2/agents/launch/preview",
    tags: ["agents"],
    summary:
      "Dry run of the agent's launch: addresses, fee, first buy, gas; nothing signed or sent",
    description:
      "Runs the launch's checks in the same order with the same error codes, then predicts the wallet, treasury Safe (and token and pair once an earlier attempt created the token), the launch fee, the tokens a first buy would get, each transaction's gas and the BNB the relayer would spend. Counts against the launch request budget (10 per minute per key).",
    security: AGENT_KEY_SECURITY,
    middleware: launchGuards(d),
    request: {
      body: jsonBody(LaunchRequest),
    },
    responses: {
      200: jsonResponse("The preview", okEnvelope(AgentLaunchPreview)),
      ...launchGuardErrors(),
      503: launchErrorResponse("ORCHESTRATOR_UNAVAIL: the signer or the chain is unreachable"),
    },
  });

/**
 * `POST /v2/agents/launch/preview`: the launch's own checks in the same order with the same
 * codes (key, scope, per-key rate, body, agent match, not launched, image), then the dry run.
 */
export function registerLaunchPreview(app: OpenAPIHono<AppEnv>, d: LaunchPreviewDeps) {
  const sub = new OpenAPIHono<AgentAuthEnv>({ defaultHook: launchBodyHook });
  sub.openapi(previewRoute(d), async (c) => {
    const key = c.get("agentKey");
    const body = c.req.valid("json");
    checkFirstBuy(body, d.firstBuyMaxWei);
    if (body.agentId !== key.agentId) {
      throw new HttpError("AGENT_ID_MISMATCH", {
        message: "agentId is not the agent this key belongs to",
      });
    }
    const [saga] = await d.sql<{ status: string }[]>`
      select status from app.launch_sagas where agent_id = ${body.agentId}`;
    if (saga?.status === "succeeded" || saga?.status === "running") {
      throw new HttpError("AGENT_ALREADY_LAUNCHED", {
        message:
          saga.status === "running"
            ? "a launch of this agent is in progress"
            : "this agent has already launched its token",
      });
    }
    // An ImageCheckError is 400 INVALID_REQUEST with its reason, as for the launch (toHttpError).
    await checkImage({ url: body.imageUrl, trustedOrigins: d.trustedImageOrigins });
    const asked = { firstBuyWei: BigInt(body.firstBuyWei), antiSniper: body.antiSniper };
    const data = await d.preview(body.agentId, asked).catch((error: unknown) => {
      throw new HttpError("ORCHESTRATOR_UNAVAIL", {
        message: "the signer or the chain could not be reached for the preview; retry",
        cause: error,
      });
    });
    return c.json({ ok: true as const, data }, 200);
  });
  sub.onError((error, c) => renderLaunchError(c, error));
  app.route("/", sub);
}
