import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  type LocalAccount,
  parseEther,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { uniswapV2FactoryAbi } from "../../abis/UniswapV2Factory.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import {
  createTokenCall,
  dexBuyCall,
  dexSellCall,
  registerTokenCall,
} from "../../devnet/storyline/calls.ts";
import { signCreateArgs } from "../../lib/create-args.ts";
import type { IndexerWorld } from "./indexer-world.ts";

// A four.meme tax token whose holders earn dividends, on an indexer world's devnet: the one
// kind of service token the devnet's launches do not make (their default terms send the whole
// tax to the treasury). Shared by the dividends test and the web app's holders test.

/** Sends one call from `from` and waits for its successful receipt. */
export async function sendFrom(
  w: IndexerWorld,
  from: LocalAccount,
  call: { to: Address; data: Hex; value?: bigint; gas?: bigint },
): Promise<TransactionReceipt> {
  const wallet = createWalletClient({ account: from, transport: http(w.anvil.rpcUrl) });
  const hash = await wallet.sendTransaction({ ...call, chain: null });
  const receipt = await w.client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`${hash} reverted`);
  return receipt;
}

/**
 * A DEX buy of 1 BNB by `trader`, then a sale of half its holding: both pay the tax, and the sale
 * first dispatches what the token kept (a `FeeDispatched`, dividends for holders).
 */
export async function dexRound(w: IndexerWorld, token: Address, trader: LocalAccount) {
  const c = w.record.contracts;
  const deadline = 2n ** 40n;
  await sendFrom(w, trader, dexBuyCall(c, token, trader.address, parseEther("1"), deadline));
  const held = await w.client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [trader.address],
  });
  await sendFrom(w, trader, {
    to: token,
    data: encodeFunctionData({
      abi: erc20Abi,
      functionName: "approve",
      args: [c.uniswapV2Router, held],
    }),
  });
  await sendFrom(w, trader, dexSellCall(c, token, trader.address, held / 2n, deadline));
}

export type DividendTokenParameters = {
  name: string;
  symbol: string;
  /** The create request's id (unique per token). */
  requestId: bigint;
  creator: LocalAccount;
  treasury: Address;
  /** Each buys 12 BNB on the curve: two of them graduate it to the DEX. */
  holders: readonly LocalAccount[];
  /** Trades on the DEX after graduation, `rounds` times (`dexRound`). */
  trader: LocalAccount;
  rounds: number;
};

/**
 * Creates, graduates and registers (the relayer is the registry's registrar) a tax token of 10 %
 * on DEX trades, half to `treasury`, half to holders of at least 100,000 tokens, then trades it.
 *
 * @example
 * const token = await createDividendToken(w, { name: "Dividend Agent", symbol: "DIV", ... });
 */
export async function createDividendToken(
  w: IndexerWorld,
  p: DividendTokenParameters,
): Promise<Address> {
  const c = w.record.contracts;
  const acc = devnetAccounts();
  const signed = await signCreateArgs({
    name: p.name,
    symbol: p.symbol,
    requestId: p.requestId,
    creator: p.creator.address,
    recipient: p.treasury,
    feeRateBps: 1000,
    recipientRate: 50,
    divideRate: 50,
    minSharing: 100_000n * 10n ** 18n,
    signer: acc.launchpadSigner,
    chainId: w.record.chainId,
    tokenManager: c.tokenManager2,
  });
  const created = await sendFrom(w, p.creator, createTokenCall(w.record, signed));
  const [ev] = parseEventLogs({
    abi: tokenManager2Abi,
    logs: created.logs,
    eventName: "TokenCreate",
  });
  if (!ev) throw new Error("createToken emitted no TokenCreate");
  const token = ev.args.token.toLowerCase() as Address;
  for (const who of p.holders) {
    await sendFrom(w, who, {
      to: c.tokenManager2,
      value: parseEther("12"),
      data: encodeFunctionData({
        abi: tokenManager2Abi,
        functionName: "buyTokenAMAP",
        args: [token, parseEther("12"), 0n],
      }),
    });
  }
  const pair = (await w.client.readContract({
    address: c.uniswapV2Factory,
    abi: uniswapV2FactoryAbi,
    functionName: "getPair",
    args: [token, c.wbnb],
  })) as Address;
  await sendFrom(
    w,
    acc.relayer,
    registerTokenCall(c, {
      token,
      pair,
      creator: p.creator.address,
      treasury: p.treasury,
      agentId: 0n,
      createdBlock: created.blockNumber,
    }),
  );
  for (let i = 0; i < p.rounds; i++) await dexRound(w, token, p.trader);
  return token;
}
