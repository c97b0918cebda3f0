import { randomUUID } from "node:crypto";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { type Address, encodeFunctionData, erc20Abi, type PublicClient } from "viem";
import { uniswapV2Router02Abi } from "../../abis/UniswapV2Router02.ts";
import type { Sql } from "../../lib/db/client.ts";
import { PERPS_VENUE, SPOT_VENUE } from "../../lib/policy/model.ts";
import type { StewardClient } from "../../services/steward/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import {
  AGENT_KEY_SECURITY,
  AgentParams,
  errorResponse,
  jsonBody,
  jsonResponse,
  okEnvelope,
} from "../http/schemas.ts";
import { validationHook } from "../http/validation.ts";
import { ORDER_LIMITS } from "../limits.ts";
import { type AgentOwnerEnv, agentOwner } from "../middleware/agent-owner/index.ts";
import { agentOf } from "../middleware/agent-path/index.ts";
import { type JudgeDeps, judgeTransactions, type OrderStep, type OrderWallet } from "./judge.ts";
import { type PerpsExchange, placePerpsOrder } from "./orders-perps.ts";
import { signerError } from "./policy.ts";

const Wei = z.string().regex(/^[1-9][0-9]{0,77}$/, "must be a positive integer string");
const Decimal = z.string().regex(/^\d{1,20}(\.\d{1,18})?$/, "must be a decimal string");
const Address20 = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 20-byte hex address")
  .transform((a) => a.toLowerCase() as Address);

export const SpotOrder = z
  .strictObject({
    venue: z.literal(SPOT_VENUE),
    side: z.enum(["buy", "sell"]),
    token: Address20,
    /** buy: BNB wei to spend; sell: token units to sell. */
    amount: Wei,
    minAmountOut: z
      .string()
      .regex(/^[0-9]{1,78}$/)
      .default("0"),
  })
  .openapi("SpotOrder");
export const VenueOrder = z
  .strictObject({
    venue: z
      .string()
      .min(1)
      .max(50)
      .regex(/^[a-z0-9-]+$/, "must be a venue id such as hyperliquid")
      // The spot venue takes a SpotOrder only: the route's union stays one schema per venue.
      .refine((v) => v !== SPOT_VENUE, "the spot venue takes side buy or sell, token and amount"),
    asset: z.string().regex(/^[A-Za-z0-9]{1,20}$/, "must be a market such as BTC"),
    side: z.enum(["long", "short"]),
    size: Decimal,
    leverage: z.number().int().min(1).max(100).optional(),
    reduceOnly: z.boolean().default(false),
    limitPx: Decimal.optional(),
  })
  .openapi("VenueOrder");

export type OrderRouteDeps = {
  sql: Sql;
  adminToken?: string;
  steward?: Pick<StewardClient, "sendTransaction" | "signTypedData">;
  /** The BSC chain, its spot DEX and BNB/USD feed, the platform's contracts (spot orders). */
  spot?: {
    client: PublicClient;
    router: Address;
    wbnb: Address;
    bnbUsdFeed: Address;
    platform: Address[];
  };
  /** The perps venue's info and exchange endpoints (perps orders). */
  perps?: PerpsExchange;
  /** The policy's clock (allowedUtcHours, UTC days); tests inject one. */
  now?: () => Date;
  /** Tests only: runs after an order read its policy version. */
  afterPolicyRead?: (walletId: string) => Promise<void>;
};

const need = <T>(v: T | undefined, what: string): T => {
  if (!v) throw new HttpError("unavailable", { message: `${what} is not configured` });
  return v;
};

/**
 * `POST /v2/agents/{agent}/orders`: the agent's way to trade, so its policy is reachable
 * end to end. The service's evaluator chain judges every step before the signer is asked: a
 * spot order becomes router calldata, judged, then signed and broadcast by Steward; a venue
 * order becomes the venue's actions, all judged first, signed by Steward, submitted by us. A
 * refusal is 403 `policy_denied` with the evaluator and code; nothing is signed or sent.
 *
 * @example
 * registerOrders(app, { sql, adminToken, steward, spot, perps });
 */
export function registerOrders(app: OpenAPIHono<AppEnv>, d: OrderRouteDeps) {
  app.openapi(
    {
      method: "post",
      path: "/v2/agents/{agent}/orders",
      tags: ["policy"],
      summary: "Trade under the agent's policy: a spot swap on the BSC DEX or a perps order",
      description:
        "The service decodes every step, runs the policy chain (docs/policies.md) on all of them before anything is signed, and has Steward sign only what passes. Spot: `side` buy spends `amount` wei of BNB, sell sells `amount` token units (approving the router first when needed; the router must be on `approveAllowlist`; the approval and the sale are judged together, the sell pledge included, before either is signed). Perps: the leverage and the order are judged together; a refused order leaves the venue untouched (its leverage too); else `leverage` is set first (never on a `reduceOnly` close, which ignores it), then an IOC order at the mark ± slippage (or `limitPx`). Send `Idempotency-Key` to make a retried spot order sign once.",
      security: AGENT_KEY_SECURITY,
      // Who may trade is settled before the body is read: 401/403/404 before 400.
      middleware: [agentOwner({ sql: d.sql, adminToken: d.adminToken }), agentOnly] as const,
      request: {
        params: AgentParams,
        body: jsonBody(z.union([SpotOrder, VenueOrder])),
      },
      responses: {
        200: jsonResponse(
          "Signed and sent",
          okEnvelope(
            z
              .object({
                venue: z.string(),
                policyId: z.string().optional(),
                version: z.number().optional(),
              })
              .loose(),
          ),
        ),
        400: errorResponse("validation_failed"),
        401: errorResponse("AGENT_AUTH_MISSING or AGENT_AUTH_INVALID"),
        403: errorResponse(
          "policy_denied (with `code` and the evaluator in details), policy_needs_manual, AGENT_SCOPE_FORBIDDEN or not_authorized",
        ),
        404: errorResponse("No agent has this token address, or it has no wallet"),
        409: errorResponse(
          "conflict: the agent's wallet cannot pay for the transaction (gas and value); nothing was sent",
        ),
        502: errorResponse(
          "upstream_error: the chain refused the transaction at the signer, or the venue refused the order",
        ),
        503: errorResponse("The signer or the venue is unavailable; nothing was signed"),
      },
    },
    async (c) => {
      const order = c.req.valid("json");
      const a = agentOf(c);
      if (!a.walletId || !a.walletAddress) {
        throw new HttpError("not_found", { message: "this agent has no signer wallet yet" });
      }
      const steward = need(d.steward, "the signer");
      const key = c.req.header("idempotency-key")?.slice(0, 100) || randomUUID();
      const wallet: OrderWallet = {
        agentId: a.agentId,
        walletId: a.walletId,
        address: a.walletAddress.toLowerCase() as Address,
        token: a.tokenAddress,
        launchedAt: a.launchedAt,
      };
      const judge: JudgeDeps = {
        sql: d.sql,
        now: d.now,
        afterPolicyRead: d.afterPolicyRead,
        spot: d.spot,
        perps: d.perps,
      };
      if (isSpot(order)) {
        const spot = need(d.spot, "the spot DEX");
        const r = await spotOrder(judge, steward, spot, wallet, order, key).catch((e: unknown) => {
          throw signerError(e);
        });
        return c.json({ ok: true as const, data: { venue: SPOT_VENUE, ...r } }, 200);
      }
      const r = await placePerpsOrder({
        judge,
        steward,
        perps: order.venue === PERPS_VENUE ? need(d.perps, "the perps venue") : undefined,
        wallet,
        order,
      }).catch((e: unknown) => {
        throw signerError(e);
      });
      return c.json({ ok: true as const, data: { venue: order.venue, ...r } }, 200);
    },
    (result, c) => {
      if (result.success) return undefined;
      // The union alone says only "invalid input": name the problems as the schema of the
      // body's venue sees them (the validator hands the hook the body it parsed).
      const raw = (result as { data?: { venue?: unknown } | null }).data;
      const one = (raw?.venue === SPOT_VENUE ? SpotOrder : VenueOrder).safeParse(raw);
      return validationHook("validation_failed")(
        { ...result, error: one.error ?? result.error },
        c,
      );
    },
  );
}

type SpotOrderBody = z.infer<typeof SpotOrder>;
const isSpot = (o: SpotOrderBody | z.infer<typeof VenueOrder>): o is SpotOrderBody =>
  o.venue === SPOT_VENUE;

/** Custody: an operator manages keys and policies, but trades are the agent's own. */
const agentOnly: MiddlewareHandler<AgentOwnerEnv> = async (c, next) => {
  if (c.get("actor").kind !== "agent") {
    throw new HttpError("not_authorized", {
      message: "orders are placed with the agent's own key",
    });
  }
  await next();
};

async function spotOrder(
  judge: JudgeDeps,
  steward: NonNullable<OrderRouteDeps["steward"]>,
  spot: NonNullable<OrderRouteDeps["spot"]>,
  wallet: OrderWallet,
  o: SpotOrderBody,
  key: string,
) {
  const deadline = BigInt(Math.floor(Date.now() / 1000) + ORDER_LIMITS.swapDeadlineSeconds);
  const amount = BigInt(o.amount);
  type Sent = Awaited<ReturnType<typeof steward.sendTransaction>>;
  const steps: OrderStep<Sent>[] = [];
  if (o.side === "sell") {
    const allowance = await spot.client.readContract({
      address: o.token,
      abi: erc20Abi,
      functionName: "allowance",
      args: [wallet.address, spot.router],
    });
    if (allowance < amount) {
      const data = encodeFunctionData({
        abi: erc20Abi,
        functionName: "approve",
        args: [spot.router, amount],
      });
      steps.push({
        tx: { to: o.token, value: 0n, data },
        // The sale is signed only once its approval is mined.
        send: async () => {
          const r = await steward.sendTransaction(wallet.walletId, {
            to: o.token,
            idempotencyKey: `order:${key}:approve`,
            data,
          });
          await spot.client.waitForTransactionReceipt({
            hash: r.txHash,
            timeout: ORDER_LIMITS.receiptTimeoutMs,
          });
          return r;
        },
      });
    }
  }
  const data =
    o.side === "buy"
      ? encodeFunctionData({
          abi: uniswapV2Router02Abi,
          functionName: "swapExactETHForTokensSupportingFeeOnTransferTokens",
          args: [BigInt(o.minAmountOut), [spot.wbnb, o.token], wallet.address, deadline],
        })
      : encodeFunctionData({
          abi: uniswapV2Router02Abi,
          functionName: "swapExactTokensForETHSupportingFeeOnTransferTokens",
          args: [amount, BigInt(o.minAmountOut), [o.token, spot.wbnb], wallet.address, deadline],
        });
  const value = o.side === "buy" ? o.amount : "0";
  steps.push({
    tx: { to: spot.router, value: BigInt(value), data },
    send: () =>
      steward.sendTransaction(wallet.walletId, {
        to: spot.router,
        value,
        data,
        idempotencyKey: `order:${key}`,
      }),
  });
  // The approval and the sale are judged together (the pledge included) before either is signed.
  const { results, policy } = await judgeTransactions(judge, wallet, steps);
  const swap = results.at(-1) as Sent;
  const out = { txHash: swap.txHash, policyId: policy.policyId, version: policy.version };
  // JSON drops an undefined approveTx anyway; leaving it out keeps the answer a JSON value.
  return results.length > 1 ? { ...out, approveTx: (results[0] as Sent).txHash } : out;
}
