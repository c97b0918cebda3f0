import {
  type Address,
  encodeFunctionData,
  encodePacked,
  getAbiItem,
  getCreate2Address,
  keccak256,
  parseEventLogs,
  toHex,
  zeroAddress,
} from "viem";
import { identityRegistryDevnetAbi } from "../../abis/IdentityRegistryDevnet.ts";
import { safeL2Abi } from "../../abis/SafeL2.ts";
import { safeProxyFactoryAbi } from "../../abis/SafeProxyFactory.ts";
import { serviceRegistryAbi } from "../../abis/ServiceRegistry.ts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { decodeCreateArgs } from "../../lib/create-args.ts";
import { checkImage } from "../../lib/image/check.ts";
import { pairAddress } from "../../lib/pair.ts";
import { UpstreamError } from "../../services/http.ts";
import { loginMessage } from "../../services/launchpad-api/protocol.ts";
import { LAUNCH_LIMITS } from "../limits.ts";
import type { SagaContext } from "./context.ts";
import { SagaError } from "./errors.ts";
import { sendRelayerTx } from "./relayer.ts";
import { patchSaga, type SagaRow } from "./row.ts";
import type { SagaStep } from "./step-names.ts";

/** A step: does its work only if the chain or the upstream does not already show it done. */
export type Step = (ctx: SagaContext, saga: SagaRow) => Promise<"done" | "skipped">;

const lower = (a: string) => a.toLowerCase() as Address;
const need = <T>(v: T | null, what: string): T => {
  if (v === null || v === undefined) throw new Error(`saga state lacks ${what}`);
  return v;
};

/** Path of the ERC-8004 registration file the API serves for an agent. */
export const registrationPath = (agentId: string) => `/v2/registrations/${agentId}.json`;

/** The agent's wallet from the signer (the signer itself answers idempotently per agent). */
const wallet: Step = async (ctx, saga) => {
  if (saga.wallet_id) return "skipped";
  const w = await ctx.steward.provisionWallet({ agentId: saga.agent_id });
  await patchSaga(ctx.sql, saga, { wallet_id: w.walletId, wallet_address: lower(w.address) });
  return "done";
};

/** Gas money from the relayer: skipped once the wallet holds enough or the funding was mined. */
const fund: Step = async (ctx, saga) => {
  const address = need(saga.wallet_address, "wallet");
  const [balance, gasPrice, launchFee] = await Promise.all([
    ctx.client.getBalance({ address }),
    ctx.client.getGasPrice(),
    ctx.client.readContract({
      address: ctx.contracts.tokenManager2,
      abi: tokenManager2Abi,
      functionName: "_launchFee",
    }),
  ]);
  const target = launchFee + gasPrice * LAUNCH_LIMITS.fundGasUnits;
  if (saga.fund_tx) {
    const r = await ctx.client
      .getTransactionReceipt({ hash: saga.fund_tx.hash })
      .catch(() => undefined);
    if (r?.status === "success") return "skipped";
  }
  if (balance >= target) return "skipped";
  await sendRelayerTx({
    ctx,
    stored: saga.fund_tx,
    save: (tx) => patchSaga(ctx.sql, saga, { fund_tx: tx }),
    to: address,
    value: target - balance,
  });
  return "done";
};

/** The treasury Safe's initializer and its CREATE2 address (deterministic per agent). */
export async function treasuryPlan(ctx: SagaContext, saga: SagaRow) {
  const agentWallet = need(saga.wallet_address, "wallet");
  const owners = [agentWallet, ...ctx.safeOwners.filter((o) => lower(o) !== agentWallet)];
  const initializer = encodeFunctionData({
    abi: safeL2Abi,
    functionName: "setup",
    args: [
      owners,
      BigInt(ctx.safeThreshold),
      zeroAddress,
      "0x",
      ctx.contracts.safeFallbackHandler,
      zeroAddress,
      0n,
      zeroAddress,
    ],
  });
  const saltNonce = BigInt(keccak256(toHex(`launchpad:treasury:${saga.agent_id}`)));
  const proxyCode = await ctx.client.readContract({
    address: ctx.contracts.safeProxyFactory,
    abi: safeProxyFactoryAbi,
    functionName: "proxyCreationCode",
  });
  const address = getCreate2Address({
    from: ctx.contracts.safeProxyFactory,
    salt: keccak256(encodePacked(["bytes32", "uint256"], [keccak256(initializer), saltNonce])),
    bytecodeHash: keccak256(
      encodePacked(["bytes", "uint256"], [proxyCode, BigInt(ctx.contracts.safeL2Singleton)]),
    ),
  });
  return { initializer, saltNonce, address: lower(address) };
}

/** The Safe treasury, deployed by the relayer; skipped when code exists at its address. */
const treasury: Step = async (ctx, saga) => {
  const plan = await treasuryPlan(ctx, saga);
  if (saga.treasury_address !== plan.address)
    await patchSaga(ctx.sql, saga, { treasury_address: plan.address });
  const code = await ctx.client.getCode({ address: plan.address });
  if (code && code !== "0x") return "skipped";
  await sendRelayerTx({
    ctx,
    stored: saga.safe_tx,
    save: (tx) => patchSaga(ctx.sql, saga, { safe_tx: tx }),
    to: ctx.contracts.safeProxyFactory,
    data: encodeFunctionData({
      abi: safeProxyFactoryAbi,
      functionName: "createProxyWithNonce",
      args: [ctx.contracts.safeL2Singleton, plan.initializer, plan.saltNonce],
    }),
  });
  return "done";
};

const registeredEvent = getAbiItem({ abi: identityRegistryDevnetAbi, name: "Registered" });

/** The ERC-8004 identity, registered from the agent wallet; skipped if the wallet owns one. */
const identity: Step = async (ctx, saga) => {
  if (saga.eip8004_token_id !== null) return "skipped";
  const owner = need(saga.wallet_address, "wallet");
  const found = await ctx.client.getLogs({
    address: ctx.contracts.identityRegistry,
    event: registeredEvent,
    args: { owner },
    fromBlock: ctx.fromBlock,
  });
  if (found[0]) {
    await patchSaga(ctx.sql, saga, {
      eip8004_token_id: String(found[0].args.agentId),
      identity_tx: found[0].transactionHash,
    });
    return "skipped";
  }
  const { txHash } = await ctx.steward.sendTransaction(need(saga.wallet_id, "wallet"), {
    to: ctx.contracts.identityRegistry,
    idempotencyKey: "identity",
    data: encodeFunctionData({
      abi: identityRegistryDevnetAbi,
      functionName: "register",
      args: [
        `${ctx.apiUrl}${registrationPath(saga.agent_id)}`,
        [{ metadataKey: "treasury", metadataValue: need(saga.treasury_address, "treasury") }],
      ],
    }),
  });
  await patchSaga(ctx.sql, saga, { identity_tx: txHash });
  const receipt = await ctx.client.waitForTransactionReceipt({
    hash: txHash,
    timeout: LAUNCH_LIMITS.receiptTimeoutMs,
  });
  const [ev] = parseEventLogs({
    abi: identityRegistryDevnetAbi,
    logs: receipt.logs,
    eventName: "Registered",
  });
  if (receipt.status !== "success" || !ev)
    throw new Error(`identity registration ${txHash} failed`);
  await patchSaga(ctx.sql, saga, { eip8004_token_id: String(ev.args.agentId) });
  return "done";
};

/** Signed createToken args from the launchpad API: login, image upload, create. */
const launchpad: Step = async (ctx, saga) => {
  if (saga.create_arg) return "skipped";
  const walletId = need(saga.wallet_id, "wallet");
  const address = need(saga.wallet_address, "wallet");
  const treasuryAddress = need(saga.treasury_address, "treasury");
  const nonce = await ctx.launchpad.nonce(address);
  const { signature } = await ctx.steward.signMessage(walletId, loginMessage(nonce));
  const token = await ctx.launchpad.login(address, signature);
  const image = await checkImage({
    url: saga.request.imageUrl,
    trustedOrigins: ctx.trustedImageOrigins,
  });
  const imgUrl = await ctx.launchpad.upload(
    token,
    image.bytes,
    `agent.${image.type}`,
    `image/${image.type}`,
  );
  const r = saga.request;
  const created = await ctx.launchpad.create(token, {
    name: r.name,
    shortName: r.ticker,
    desc: r.description,
    imgUrl,
    launchTime: Date.now(),
    label: "AI",
    preSale: "0",
    tokenTaxInfo: {
      buyTaxBps: LAUNCH_LIMITS.buyTaxBps,
      sellTaxBps: LAUNCH_LIMITS.sellTaxBps,
      recipientAddress: treasuryAddress,
      recipientRate: LAUNCH_LIMITS.treasuryShareBps,
    },
  });
  // Never send what we did not ask for: the args must name our wallet, treasury and terms.
  const args = decodeCreateArgs(created.createArg);
  if (
    lower(args.creator) !== address ||
    lower(args.treasury) !== treasuryAddress ||
    args.buyTaxBps !== LAUNCH_LIMITS.buyTaxBps ||
    args.sellTaxBps !== LAUNCH_LIMITS.sellTaxBps ||
    args.name !== r.name ||
    args.symbol !== r.ticker
  ) {
    throw new SagaError(
      "LAUNCHPAD_ERROR",
      "launchpad API returned create args that differ from the request",
    );
  }
  await patchSaga(ctx.sql, saga, {
    create_arg: created.createArg,
    create_signature: created.signature,
    request_id: args.requestId.toString(),
    predicted_token: lower(created.tokenAddress),
  });
  return "done";
};

/** The predicted token and pair in the ServiceRegistry, BEFORE creation (indexer follows it). */
const register: Step = async (ctx, saga) => {
  const token = need(saga.predicted_token, "predicted token");
  const registered = await ctx.client.readContract({
    address: ctx.contracts.serviceRegistry,
    abi: serviceRegistryAbi,
    functionName: "isRegistered",
    args: [token],
  });
  if (registered) return "skipped";
  await sendRelayerTx({
    ctx,
    stored: saga.register_tx,
    save: (tx) => patchSaga(ctx.sql, saga, { register_tx: tx }),
    to: ctx.contracts.serviceRegistry,
    data: encodeFunctionData({
      abi: serviceRegistryAbi,
      functionName: "registerToken",
      args: [
        token,
        pairAddress({
          factory: ctx.contracts.dexFactory,
          token,
          wbnb: ctx.contracts.wbnb,
          initCodeHash: ctx.pairInitCodeHash,
        }),
        need(saga.wallet_address, "wallet"),
        need(saga.treasury_address, "treasury"),
        BigInt(need(saga.eip8004_token_id, "identity")),
      ],
    }),
  });
  return "done";
};

/** createToken from the agent wallet with the launch fee; the token from TokenCreate. */
const create: Step = async (ctx, saga) => {
  if (saga.token_address) return "skipped";
  const launchFee = await ctx.client.readContract({
    address: ctx.contracts.tokenManager2,
    abi: tokenManager2Abi,
    functionName: "_launchFee",
  });
  let hash = saga.create_tx;
  if (!hash) {
    try {
      ({ txHash: hash } = await ctx.steward.sendTransaction(need(saga.wallet_id, "wallet"), {
        to: ctx.contracts.tokenManager2,
        value: launchFee.toString(),
        // One key per signed args: the signer returns the same transaction on a retry.
        idempotencyKey: `create:${need(saga.request_id, "request id")}`,
        data: encodeFunctionData({
          abi: tokenManager2Abi,
          functionName: "createToken",
          args: [need(saga.create_arg, "create args"), need(saga.create_signature, "signature")],
        }),
      }));
    } catch (error) {
      // The signer simulates first: a revert is the launchpad contract refusing the args.
      if (error instanceof UpstreamError && error.refusedWith(422)) {
        throw new SagaError("LAUNCHPAD_ERROR", `createToken would revert: ${error.details ?? ""}`, {
          cause: error,
        });
      }
      throw error;
    }
    await patchSaga(ctx.sql, saga, { create_tx: hash });
  }
  const receipt = await ctx.client.waitForTransactionReceipt({
    hash,
    timeout: LAUNCH_LIMITS.receiptTimeoutMs,
  });
  if (receipt.status !== "success")
    throw new SagaError("LAUNCHPAD_ERROR", `createToken ${hash} reverted`);
  const [ev] = parseEventLogs({
    abi: tokenManager2Abi,
    logs: receipt.logs,
    eventName: "TokenCreate",
  });
  if (!ev) throw new SagaError("LAUNCHPAD_ERROR", `createToken ${hash} emitted no TokenCreate`);
  await patchSaga(ctx.sql, saga, { token_address: lower(ev.args.token) });
  return "done";
};

/** The steps in order. */
export const STEPS: Record<SagaStep, Step> = {
  wallet,
  fund,
  treasury,
  identity,
  launchpad,
  register,
  create,
};
