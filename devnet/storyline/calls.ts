import {
  type Abi,
  type Address,
  type ContractFunctionName,
  type EncodeFunctionDataParameters,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  zeroAddress,
} from "viem";
import { bnbUsdFeedAbi } from "../../abis/BnbUsdFeed.ts";
import { identityRegistryDevnetAbi } from "../../abis/IdentityRegistryDevnet.ts";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { launchVaultAbi } from "../../abis/LaunchVault.ts";
import { safeL2Abi } from "../../abis/SafeL2.ts";
import { safeProxyFactoryAbi } from "../../abis/SafeProxyFactory.ts";
import { serviceRegistryAbi } from "../../abis/ServiceRegistry.ts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { uniswapV2Router02Abi } from "../../abis/UniswapV2Router02.ts";
import type { DeploymentRecord } from "../record.ts";
import type { StoryCall } from "./world.ts";

// Fixed gas limits: estimates go stale when parallel senders touch the same token, and a DEX
// pair's first price-accumulator writes depend on a block timestamp an estimate does not see.
export const STORY_GAS = {
  transfer: 21_000n,
  erc20: 300_000n,
  identity: 500_000n,
  register: 200_000n,
  trade: 600_000n,
  dex: 600_000n,
  /** Deployments and vault operations (createToken, createLaunch, a Safe, executeLaunch). */
  heavy: 8_000_000n,
} as const;

const UNLIMITED = 2n ** 255n;
type Contracts = DeploymentRecord["contracts"];

/** One contract call, encoded (typed against its ABI) into a storyline transaction. */
export function encoded<
  const abi extends Abi | readonly unknown[],
  functionName extends ContractFunctionName<abi> | undefined = undefined,
>(
  to: Address,
  gas: bigint,
  call: EncodeFunctionDataParameters<abi, functionName>,
  value?: bigint,
): StoryCall {
  // The caller's parameters are checked against its ABI above; viem's own generics do not pass through.
  return {
    to,
    data: encodeFunctionData(call as unknown as EncodeFunctionDataParameters),
    value,
    gas,
  };
}

/** A plain BNB transfer. */
export const fundCall = (to: Address, value: bigint): StoryCall => ({
  to,
  data: "0x",
  value,
  gas: STORY_GAS.transfer,
});

export const approveCall = (token: Address, spender: Address, amount = UNLIMITED) =>
  encoded(token, STORY_GAS.erc20, {
    abi: erc20Abi,
    functionName: "approve",
    args: [spender, amount],
  });

export const transferCall = (token: Address, to: Address, amount: bigint) =>
  encoded(token, STORY_GAS.erc20, { abi: erc20Abi, functionName: "transfer", args: [to, amount] });

/** A curve buy of `funds` wei (also the graduation when it crosses the raise). */
export const buyCall = (
  c: Contracts,
  token: Address,
  funds: bigint,
  gas: bigint = STORY_GAS.trade,
) =>
  encoded(
    c.tokenManager2,
    gas,
    { abi: tokenManager2Abi, functionName: "buyTokenAMAP", args: [token, funds, 0n] },
    funds,
  );

export const sellCall = (c: Contracts, token: Address, amount: bigint) =>
  encoded(c.tokenManager2, STORY_GAS.trade, {
    abi: tokenManager2Abi,
    functionName: "sellToken",
    args: [token, amount],
  });

/** Swaps `funds` BNB for `token` on its pair, tokens to `to`. */
export const dexBuyCall = (
  c: Contracts,
  token: Address,
  to: Address,
  funds: bigint,
  deadline: bigint,
) =>
  encoded(
    c.uniswapV2Router,
    STORY_GAS.dex,
    {
      abi: uniswapV2Router02Abi,
      functionName: "swapExactETHForTokensSupportingFeeOnTransferTokens",
      args: [0n, [c.wbnb, token], to, deadline],
    },
    funds,
  );

/** Swaps `amount` of `token` for BNB on its pair, BNB to `to`. */
export const dexSellCall = (
  c: Contracts,
  token: Address,
  to: Address,
  amount: bigint,
  deadline: bigint,
) =>
  encoded(c.uniswapV2Router, STORY_GAS.dex, {
    abi: uniswapV2Router02Abi,
    functionName: "swapExactTokensForETHSupportingFeeOnTransferTokens",
    args: [amount, 0n, [token, c.wbnb], to, deadline],
  });

/** An ERC-8004 identity for an agent (IdentityRegistryDevnet lets anyone register). */
export const identityCall = (c: Contracts, uri: string) =>
  encoded(c.identityRegistry, STORY_GAS.identity, {
    abi: identityRegistryDevnetAbi,
    functionName: "register",
    args: [uri],
  });

/** A 1-of-1 Safe owned by `owner`, as the launch saga makes for a treasury. */
export const safeCall = (c: Contracts, owner: Address, saltNonce: bigint) => {
  const setup = encodeFunctionData({
    abi: safeL2Abi,
    functionName: "setup",
    args: [[owner], 1n, zeroAddress, "0x", c.safeFallbackHandler, zeroAddress, 0n, zeroAddress],
  });
  return encoded(c.safeProxyFactory, STORY_GAS.heavy, {
    abi: safeProxyFactoryAbi,
    functionName: "createProxyWithNonce",
    args: [c.safeL2Singleton, setup, saltNonce],
  });
};

/** The relayer tells the ServiceRegistry a token it created, and the block it was created in. */
export const registerTokenCall = (
  c: Contracts,
  t: {
    token: Address;
    pair: Address;
    creator: Address;
    treasury: Address;
    agentId: bigint;
    createdBlock: bigint;
  },
) =>
  encoded(c.serviceRegistry, STORY_GAS.register, {
    abi: serviceRegistryAbi,
    functionName: "registerToken",
    args: [t.token, t.pair, t.creator, t.treasury, t.agentId, t.createdBlock],
  });

export const createTokenCall = (record: DeploymentRecord, signed: { args: Hex; signature: Hex }) =>
  encoded(
    record.contracts.tokenManager2,
    STORY_GAS.heavy,
    { abi: tokenManager2Abi, functionName: "createToken", args: [signed.args, signed.signature] },
    BigInt(record.params.launchFee),
  );

export const createLaunchCall = (
  c: Contracts,
  l: { tierId: number; symbol: string; meta: string; close: bigint; creator: Address },
) =>
  encoded(c.launchFactory, STORY_GAS.heavy, {
    abi: launchFactoryAbi,
    functionName: "createLaunch",
    args: [l.tierId, `Deposit ${l.symbol}`, l.symbol, l.meta, l.close, 200, 200, l.creator],
  });

type VaultStep = "close" | "executeLaunch" | "claim" | "enableRefund" | "refund";

/** A LaunchVault call: a deposit (`value`), a withdrawal, a distribution or a bare step. */
export const vaultCall = (
  vault: Address,
  step:
    | { fn: "deposit"; value: bigint }
    | { fn: "withdraw"; amount: bigint }
    | { fn: "distribute"; from: bigint; count: bigint }
    | { fn: VaultStep },
): StoryCall => {
  const abi = launchVaultAbi;
  const gas = STORY_GAS.heavy;
  if (step.fn === "deposit")
    return encoded(vault, gas, { abi, functionName: "deposit" }, step.value);
  if (step.fn === "withdraw") {
    return encoded(vault, gas, { abi, functionName: "withdraw", args: [step.amount] });
  }
  if (step.fn === "distribute") {
    return encoded(vault, gas, { abi, functionName: "distribute", args: [step.from, step.count] });
  }
  return encoded(vault, gas, { abi, functionName: step.fn });
};

export const feedAnswerCall = (c: Contracts, answer: bigint) =>
  encoded(c.bnbUsdFeed, STORY_GAS.erc20, {
    abi: bnbUsdFeedAbi,
    functionName: "updateAnswer",
    args: [answer],
  });
