import { type Address, encodeEventTopics } from "viem";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { gasLimitFor } from "../../lib/relayer/send.ts";
import { checkLaunchImage, type LaunchCalldataDeps, launchCalldata, upstream } from "./calldata.ts";
import type { CreateLaunchInput, LaunchTransactionBody } from "./schema.ts";

export type LaunchTransactionParameters = {
  /** The signed-in wallet: the launch's creator, and the sender who pays. */
  creator: Address;
  body: CreateLaunchInput;
};

const [launchCreatedTopic] = encodeEventTopics({
  abi: launchFactoryAbi,
  eventName: "LaunchCreated",
});

/**
 * The createLaunch transaction a wallet sends itself to create its own deposit launch: the same
 * checks and calldata as a relayer-paid one, unsigned, for the wallet to sign, send and pay.
 * Nothing is stored or sent and the relayer is not involved, so no budget applies; the indexer
 * picks the launch up from the chain like any other.
 *
 * @example
 * const { transaction } = await launchTransaction(deps, { creator, body });
 * const hash = await wallet.sendTransaction({ to: transaction.to, data: transaction.data });
 */
export async function launchTransaction(
  d: LaunchCalldataDeps & { chainId: number },
  p: LaunchTransactionParameters,
): Promise<LaunchTransactionBody> {
  const data = await launchCalldata(d, p.body, p.creator);
  await checkLaunchImage(d, p.body);
  const gas = await d.client
    .estimateGas({ account: p.creator, to: d.factory, data })
    .catch((error: unknown) => {
      throw upstream("createLaunch would not go through", error);
    });
  return {
    transaction: {
      from: p.creator,
      to: d.factory.toLowerCase(),
      data,
      value: "0",
      chainId: d.chainId,
      gas: gasLimitFor(gas).toString(),
    },
    launchCreatedTopic: launchCreatedTopic as string,
  };
}
