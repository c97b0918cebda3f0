import type { Address, PublicClient } from "viem";
import { type CreateArgs, predictTokenAddress } from "../lib/create-args.ts";
import { pairAddress } from "../lib/pair.ts";
import type { DeploymentRecord } from "./record.ts";

export type PredictServiceTokenParameters = {
  client: PublicClient;
  /** The devnet's deployment record: contract addresses, platform account, init code hash. */
  record: DeploymentRecord;
  args: CreateArgs;
};

/**
 * The token `createToken(args)` will deploy on the devnet and its DEX pair: the two addresses
 * the ServiceRegistry is told before the token exists.
 */
export async function predictServiceToken(
  p: PredictServiceTokenParameters,
): Promise<{ token: Address; pair: Address }> {
  const c = p.record.contracts;
  const token = await predictTokenAddress({
    client: p.client,
    tokenDeployer: c.tokenDeployer,
    tokenManager: c.tokenManager2,
    router: c.uniswapV2Router,
    pairInitCodeHash: p.record.pairInitCodeHash,
    args: p.args,
  });
  const pair = pairAddress({
    factory: c.uniswapV2Factory,
    token,
    wbnb: c.wbnb,
    initCodeHash: p.record.pairInitCodeHash,
  });
  return { token, pair };
}
