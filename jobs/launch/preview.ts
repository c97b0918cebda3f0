import { type Address, encodeFunctionData } from "viem";
import { identityRegistryDevnetAbi } from "../../abis/IdentityRegistryDevnet.ts";
import { safeProxyFactoryAbi } from "../../abis/SafeProxyFactory.ts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { pairAddress } from "../../lib/pair.ts";
import type { TokenTaxInfo } from "../../lib/token-terms.ts";
import { LAUNCH_LIMITS } from "../limits.ts";
import type { SagaContext } from "./context.ts";
import { firstBuyValue, quoteFirstBuy } from "./first-buy.ts";
import type { SagaRow } from "./row.ts";
import { registrationPath, treasuryPlan } from "./steps.ts";

/** One transaction the launch would send, with its estimated gas. */
export type PreviewTx = {
  step: "fund" | "treasury" | "identity" | "register" | "create";
  from: Address;
  to: Address;
  valueWei: string;
  gas: string;
  /** `estimated` by eth_estimateGas; `budget` where the call needs signed args or the created token. */
  basis: "estimated" | "budget";
};

export type AgentLaunchPreview = {
  agentId: string;
  walletAddress: Address;
  treasuryAddress: Address;
  /** Known once an earlier attempt created the token (TokenCreate in its receipt); else null. */
  tokenAddress: Address | null;
  pairAddress: Address | null;
  /** The token's tax terms (four.meme's `tokenTaxInfo`, percent), the treasury as recipient. */
  tokenTaxInfo: TokenTaxInfo & { recipientAddress: Address };
  antiSniper: boolean;
  /** The first buy asked for and what it would buy (first-buy.ts); null without one. */
  firstBuy: {
    bnbWei: string;
    valueWei: string;
    tokens: string | null;
    costWei: string | null;
    feeWei: string | null;
  } | null;
  launchFeeWei: string;
  gasPriceWei: string;
  transactions: PreviewTx[];
  totalGas: string;
  /** BNB the relayer would send: the wallet's funding plus the gas of its own transactions. */
  relayerSpendWei: string;
};

const lower = (a: string) => a.toLowerCase() as Address;

/** What the request asks of the token: its first buy (wei) and AntiSniperFeeMode. */
export type PreviewAsked = { firstBuyWei: bigint; antiSniper: boolean };

/**
 * What an agent's launch would do, sending nothing: the wallet (the signer's, provisioned
 * idempotently, the one the saga then uses), the treasury Safe's CREATE2 address, the token
 * and pair when already known, the launch fee, the first buy priced on the curve, and every
 * transaction's estimated gas and the relayer's total spend. No saga row, nonce or balance
 * changes.
 *
 * @example
 * const preview = await previewAgentLaunch(ctx, agentId, { firstBuyWei: 10n ** 17n, antiSniper: true });
 */
export async function previewAgentLaunch(
  ctx: SagaContext,
  agentId: string,
  asked: PreviewAsked,
): Promise<AgentLaunchPreview> {
  const [saga] = await ctx.sql<
    SagaRow[]
  >`select * from app.launch_sagas where agent_id = ${agentId}`;
  // A wallet the launch or its preparation already stored; else Steward's find-or-create
  // (keyed by our agent id: the saga gets the same one).
  const [prepared] = saga?.wallet_address
    ? []
    : await ctx.sql<{ wallet_address: string }[]>`
        select wallet_address from app.launch_wallets
        where agent_id = ${agentId} and wallet_address is not null`;
  const known = saga?.wallet_address ?? prepared?.wallet_address;
  const wallet = known
    ? lower(known)
    : lower((await ctx.steward.provisionWallet({ agentId })).address);
  const plan = await treasuryPlan(ctx, {
    ...(saga ?? {}),
    agent_id: agentId,
    wallet_address: wallet,
  } as SagaRow);
  const [balance, gasPrice, launchFee, treasuryCode, firstBuy, quote] = await Promise.all([
    ctx.client.getBalance({ address: wallet }),
    ctx.client.getGasPrice(),
    ctx.client.readContract({
      address: ctx.contracts.tokenManager2,
      abi: tokenManager2Abi,
      functionName: "_launchFee",
    }),
    ctx.client.getCode({ address: plan.address }),
    firstBuyValue(ctx, asked.firstBuyWei),
    asked.firstBuyWei === 0n ? null : quoteFirstBuy(ctx, asked.firstBuyWei),
  ]);
  const token = saga?.token_address ? lower(saga.token_address) : null;
  const relayer = lower(ctx.relayer.address);
  const target = launchFee + firstBuy + gasPrice * LAUNCH_LIMITS.fundGasUnits;
  const fundValue = balance >= target ? 0n : target - balance;
  const txs: PreviewTx[] = [];
  const estimate = async (t: Omit<PreviewTx, "gas" | "basis">, data?: `0x${string}`) => {
    const gas = await ctx.client.estimateGas({
      account: t.from,
      to: t.to,
      data,
      value: BigInt(t.valueWei),
    });
    txs.push({ ...t, gas: gas.toString(), basis: "estimated" });
    return gas;
  };
  if (fundValue > 0n)
    await estimate({ step: "fund", from: relayer, to: wallet, valueWei: fundValue.toString() });
  if (!treasuryCode || treasuryCode === "0x") {
    await estimate(
      { step: "treasury", from: relayer, to: ctx.contracts.safeProxyFactory, valueWei: "0" },
      encodeFunctionData({
        abi: safeProxyFactoryAbi,
        functionName: "createProxyWithNonce",
        args: [ctx.contracts.safeL2Singleton, plan.initializer, plan.saltNonce],
      }),
    );
  }
  const identityGas =
    saga?.eip8004_token_id == null
      ? await estimate(
          { step: "identity", from: wallet, to: ctx.contracts.identityRegistry, valueWei: "0" },
          encodeFunctionData({
            abi: identityRegistryDevnetAbi,
            functionName: "register",
            args: [
              `${ctx.apiUrl}${registrationPath(agentId)}`,
              [{ metadataKey: "treasury", metadataValue: plan.address }],
            ],
          }),
        )
      : 0n;
  txs.push({
    step: "create",
    from: wallet,
    to: ctx.contracts.tokenManager2,
    valueWei: (launchFee + firstBuy).toString(),
    gas: (LAUNCH_LIMITS.fundGasUnits - identityGas).toString(),
    basis: "budget",
  });
  // The entry names the created token, so before the creation its gas is a budget.
  txs.push({
    step: "register",
    from: relayer,
    to: ctx.contracts.serviceRegistry,
    valueWei: "0",
    gas: LAUNCH_LIMITS.registerGasUnits.toString(),
    basis: "budget",
  });
  const relayerGas = txs.filter((t) => t.from === relayer).reduce((s, t) => s + BigInt(t.gas), 0n);
  return {
    agentId,
    walletAddress: wallet,
    treasuryAddress: plan.address,
    tokenAddress: token,
    pairAddress: token
      ? pairAddress({
          factory: ctx.contracts.dexFactory,
          token,
          wbnb: ctx.contracts.wbnb,
          initCodeHash: ctx.pairInitCodeHash,
        })
      : null,
    tokenTaxInfo: { ...ctx.tokenTerms, recipientAddress: plan.address },
    antiSniper: asked.antiSniper,
    firstBuy:
      asked.firstBuyWei === 0n
        ? null
        : {
            bnbWei: asked.firstBuyWei.toString(),
            valueWei: firstBuy.toString(),
            tokens: quote ? quote.tokens.toString() : null,
            costWei: quote ? quote.costWei.toString() : null,
            feeWei: quote ? quote.feeWei.toString() : null,
          },
    launchFeeWei: launchFee.toString(),
    gasPriceWei: gasPrice.toString(),
    transactions: txs,
    totalGas: txs.reduce((s, t) => s + BigInt(t.gas), 0n).toString(),
    relayerSpendWei: (fundValue + relayerGas * gasPrice).toString(),
  };
}
