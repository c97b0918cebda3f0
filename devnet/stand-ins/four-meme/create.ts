import { randomBytes } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { Address, LocalAccount } from "viem";
import { parseEther } from "viem";
import { signCreateArgs } from "../../../lib/create-args.ts";
import {
  LABELS,
  type RaisedToken,
  type TokenCreateBody,
  type TokenCreateResult,
  taxInfoProblem,
} from "../../../services/four-meme/protocol.ts";
import type { DeploymentRecord } from "../../record.ts";

/**
 * Name and symbol limits. four.meme publishes none; these are the service's own launch request
 * limits (api/launch/schema.ts), so nothing the service accepts is refused here and nothing
 * longer passes unnoticed.
 */
export const NAME_MAX = 32;
export const SYMBOL_PATTERN = /^[a-zA-Z0-9]{1,10}$/;

export type CreateCheck = {
  body: Partial<TokenCreateBody> | null;
  /** The raise presets this server publishes at /v1/public/config. */
  raisedTokens: RaisedToken[];
  /** Whether `imgUrl` came from this server's upload. */
  uploaded: (imgUrl: string) => boolean;
};

/** Why the create API refuses this body, or null (create-guide.md sections 2.4 and 3). */
export function createProblem({ body: b, raisedTokens, uploaded }: CreateCheck): string | null {
  if (!b || typeof b !== "object") return "body must be a JSON object";
  if (typeof b.name !== "string" || b.name.trim() === "" || b.name.length > NAME_MAX)
    return `name must be 1-${NAME_MAX} characters`;
  if (typeof b.shortName !== "string" || !SYMBOL_PATTERN.test(b.shortName))
    return "shortName must be 1-10 characters of [a-zA-Z0-9]";
  if (typeof b.desc !== "string" || b.desc.trim() === "") return "desc must not be empty";
  if (typeof b.imgUrl !== "string" || !uploaded(b.imgUrl))
    return "imgUrl must be an image uploaded to /v1/private/token/upload";
  if (!Number.isSafeInteger(b.launchTime)) return "launchTime must be milliseconds";
  if (!LABELS.includes(b.label as never)) return `label must be one of ${LABELS.join(", ")}`;
  if (b.lpTradingFee !== 0.0025) return "lpTradingFee must be 0.0025";
  if (typeof b.preSale !== "string" || !/^\d+(\.\d{1,18})?$/.test(b.preSale))
    return 'preSale must be a decimal amount, "0" for none';
  if (typeof b.feePlan !== "boolean") return "feePlan must be true or false";
  if (!b.raisedToken) return "raisedToken is required (copy it from /v1/public/config)";
  const preset = raisedTokens.find((t) => t.symbol === b.raisedToken?.symbol);
  if (!preset || !isDeepStrictEqual(preset, b.raisedToken))
    return "raisedToken must be a preset from /v1/public/config, unchanged";
  if (b.tokenTaxInfo !== undefined) {
    const problem = taxInfoProblem(b.tokenTaxInfo);
    if (problem) return problem;
  }
  return null;
}

export type SignCreateParameters = {
  body: TokenCreateBody;
  creator: Address;
  signer: LocalAccount;
  record: DeploymentRecord;
};

/**
 * The `{createArg, signature}` for a checked body: the devnet's private encoding of the token
 * (lib/create-args.ts), signed for this chain and TokenManager2. A body without tax terms gets
 * a token whose tax is 0 (the devnet has one token contract).
 */
export async function signCreate(p: SignCreateParameters): Promise<TokenCreateResult> {
  const t = p.body.tokenTaxInfo;
  const signed = await signCreateArgs({
    name: p.body.name,
    symbol: p.body.shortName,
    requestId: BigInt(`0x${randomBytes(16).toString("hex")}`),
    creator: p.creator,
    // The create API takes percent; on chain the rate is basis points.
    feeRateBps: (t?.feeRate ?? 0) * 100,
    burnRate: t ? t.burnRate : 100,
    divideRate: t?.divideRate ?? 0,
    liquidityRate: t?.liquidityRate ?? 0,
    recipientRate: t?.recipientRate ?? 0,
    recipient: (t?.recipientAddress || p.creator) as Address,
    minSharing: parseEther(String(t?.minSharing ?? 100_000)),
    // The creator's first buy, in the raise's quote (BNB: ether units), and AntiSniperFeeMode.
    preSale: parseEther(p.body.preSale),
    feeSetting: p.body.feePlan ? 1 : 0,
    signer: p.signer,
    chainId: p.record.chainId,
    tokenManager: p.record.contracts.tokenManager2,
  });
  return { createArg: signed.args, signature: signed.signature };
}

/** The devnet's raise preset: BNB (WBNB as its address), the curve's fixed parameters. */
export function devnetRaisedTokens(record: DeploymentRecord): RaisedToken[] {
  return [
    {
      symbol: "BNB",
      nativeSymbol: "BNB",
      symbolAddress: record.contracts.wbnb.toLowerCase(),
      deployCost: "0",
      buyFee: "0.01",
      sellFee: "0.01",
      minTradeFee: "0",
      b0Amount: "8",
      totalBAmount: String(Number(BigInt(record.params.maxRaising) / 10n ** 15n) / 1000),
      totalAmount: "1000000000",
      tradeLevel: ["0.1", "0.5", "1"],
      status: "PUBLISH",
      reservedNumber: 10,
      saleRate: "0.8",
      networkCode: "BSC",
      platform: "MEME",
    },
  ];
}
