import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  type Hex,
  type PublicClient,
} from "viem";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { checkImage, ImageCheckError } from "../../lib/image/check.ts";
import { HttpError } from "../errors.ts";
import { DEPOSIT_LAUNCH_LIMITS } from "../limits.ts";
import type { CreateLaunchInput } from "./schema.ts";

/** What checking a creation body against the chain needs. */
export type LaunchCalldataDeps = {
  client: PublicClient;
  factory: Address;
  trustedImageOrigins: string[];
};

/** A 400 `validation_failed` naming one field. */
export const invalid = (path: string, message: string) =>
  new HttpError("validation_failed", {
    message: `${path}: ${message}`,
    details: [{ path, message }],
  });

/** A 502 `upstream_error` carrying the revert's name or the node's short message. */
export function upstream(message: string, cause?: unknown) {
  let detail = "";
  if (cause instanceof BaseError) {
    const revert = cause.walk((e) => e instanceof ContractFunctionRevertedError);
    detail = `: ${revert instanceof ContractFunctionRevertedError ? (revert.data?.errorName ?? revert.shortMessage) : cause.shortMessage}`;
  }
  return new HttpError("upstream_error", { message: `${message}${detail}`, cause });
}

/**
 * A creation body's image, fetched and checked as an agent launch's is (a 400 naming `image`
 * when refused). Apart from `launchCalldata`: the relayer's path runs it only once the launch
 * holds a place in the relayer's budget, so a burst past the budget fetches nothing.
 *
 * @example
 * await checkLaunchImage(deps, body);
 */
export async function checkLaunchImage(
  d: Pick<LaunchCalldataDeps, "trustedImageOrigins">,
  b: CreateLaunchInput,
): Promise<void> {
  try {
    await checkImage({ url: b.image, trustedOrigins: d.trustedImageOrigins });
  } catch (error) {
    if (error instanceof ImageCheckError) throw invalid("image", error.message);
    throw error;
  }
}

/**
 * A creation body's chain-bound checks (tier enabled, close window), then the calldata of
 * `createLaunch(…, creator)`: the same for the relayer's transaction and the one a wallet sends
 * itself. The image is `checkLaunchImage`'s.
 *
 * @example
 * const data = await launchCalldata(deps, body, session.address);
 */
export async function launchCalldata(
  d: LaunchCalldataDeps,
  b: CreateLaunchInput,
  creator: Address,
): Promise<Hex> {
  if (Number(b.tier) > 255) throw invalid("tier", `tier ${b.tier} is not a tier id (0-255)`);
  const f = { address: d.factory, abi: launchFactoryAbi } as const;
  const [tier, maxDuration, block] = await Promise.all([
    d.client.readContract({ ...f, functionName: "tiers", args: [Number(b.tier)] }),
    d.client.readContract({ ...f, functionName: "MAX_DURATION" }),
    d.client.getBlock({ blockTag: "latest" }),
  ]).catch((error: unknown) => {
    throw new HttpError("unavailable", {
      message: "the chain could not be read; retry",
      cause: error,
    });
  });
  if (!tier.enabled) throw invalid("tier", `tier ${b.tier} is not enabled on the factory`);
  const now = Number(block.timestamp);
  const earliest = now + DEPOSIT_LAUNCH_LIMITS.minOpenSeconds;
  const latest = now + Number(maxDuration);
  if (b.closeTimestamp < earliest || b.closeTimestamp > latest) {
    throw invalid(
      "closeTimestamp",
      `must be between ${earliest} and ${latest} (chain time ${now})`,
    );
  }
  const metadata = JSON.stringify({
    description: b.description,
    image: b.image,
    socials: b.socials ?? {},
  });
  return encodeFunctionData({
    abi: launchFactoryAbi,
    functionName: "createLaunch",
    args: [
      Number(b.tier),
      b.name,
      b.symbol,
      metadata,
      BigInt(b.closeTimestamp),
      b.buyTaxBps,
      b.sellTaxBps,
      creator,
    ],
  });
}
