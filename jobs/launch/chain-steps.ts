import { type Address, encodeFunctionData, getAbiItem, keccak256, parseEventLogs } from "viem";
import { identityRegistryDevnetAbi } from "../../abis/IdentityRegistryDevnet.ts";
import { safeProxyFactoryAbi } from "../../abis/SafeProxyFactory.ts";
import { serviceRegistryAbi } from "../../abis/ServiceRegistry.ts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { pairAddress } from "../../lib/pair.ts";
import { type RelayerCall, rebroadcastRelayerTxs, type StoredTx } from "../../lib/relayer/nonce.ts";
import { sendRelayerTxs } from "../../lib/relayer/send.ts";
import { UpstreamError } from "../../services/http.ts";
import { LAUNCH_LIMITS } from "../limits.ts";
import type { SagaContext } from "./context.ts";
import { SagaError } from "./errors.ts";
import { firstBuyValue, firstBuyWei } from "./first-buy.ts";
import { maybeKill } from "./kill-points.ts";
import { identityGas, launchBudget, launchFee } from "./prepare.ts";
import { patchSaga, type SagaPatch, type SagaRow } from "./row.ts";
import { settleRelayerTx } from "./settle-relayer-tx.ts";
import type { SagaStep, STORE_KILL_POINTS } from "./step-names.ts";
import {
  launchpad,
  lower,
  need,
  registrationPath,
  type Step,
  treasuryPlan,
  wallet,
} from "./steps.ts";

// The chain half of the saga. Every transaction is stored before it is broadcast (relayer:
// the signed bytes in the saga row; agent wallet: the signer keeps them per idempotency key),
// so a resumed step re-broadcasts the same transaction or, if its nonce went to another one,
// re-checks the chain before signing anew: nothing is lost and nothing is sent twice.

/** Test mode: a crash after the signed transactions are stored, before they are broadcast. */
const killPoint = (ctx: SagaContext, saga: SagaRow, step: (typeof STORE_KILL_POINTS)[number]) =>
  maybeKill({ points: ctx.killPoints, dataDir: ctx.dataDir, agentId: saga.agent_id, step });

const receiptWait = {
  timeout: LAUNCH_LIMITS.receiptTimeoutMs,
  pollingInterval: LAUNCH_LIMITS.receiptPollMs,
};

/**
 * Money the wallet still needs for its two transactions, the launch fee and the first buy with
 * its fee; null: none. A wallet prepared with the launch's budget needs only the first buy.
 * Once createToken is sent the launch is paid for: a resumed saga must not top the spent wallet
 * up again.
 */
async function fundCall(ctx: SagaContext, saga: SagaRow): Promise<RelayerCall | null> {
  if (saga.create_tx || saga.token_address) return null;
  const address = need(saga.wallet_address, "wallet");
  const [balance, budget, firstBuy] = await Promise.all([
    ctx.client.getBalance({ address }),
    launchBudget(ctx),
    firstBuyValue(ctx, firstBuyWei(saga)),
  ]);
  const target = budget + firstBuy;
  return balance >= target ? null : { to: address, value: target - balance };
}

/** The Safe's deployment, unless code already sits at its CREATE2 address. */
async function safeCall(ctx: SagaContext, saga: SagaRow): Promise<RelayerCall | null> {
  const plan = await treasuryPlan(ctx, saga);
  const code = await ctx.client.getCode({ address: plan.address });
  if (code && code !== "0x") return null;
  return {
    to: ctx.contracts.safeProxyFactory,
    data: encodeFunctionData({
      abi: safeProxyFactoryAbi,
      functionName: "createProxyWithNonce",
      args: [ctx.contracts.safeL2Singleton, plan.initializer, plan.saltNonce],
    }),
  };
}

/**
 * The ServiceRegistry entry of the token createToken created (from TokenCreate in its receipt),
 * with the block it was created in, unless it is registered already.
 */
async function registerCall(ctx: SagaContext, saga: SagaRow): Promise<RelayerCall | null> {
  const token = need(saga.token_address, "token");
  const [registered, created] = await Promise.all([
    ctx.client.readContract({
      address: ctx.contracts.serviceRegistry,
      abi: serviceRegistryAbi,
      functionName: "isRegistered",
      args: [token],
    }),
    ctx.client.getTransactionReceipt({ hash: need(saga.create_tx, "create transaction") }),
  ]);
  if (registered) return null;
  const pair = pairAddress({
    factory: ctx.contracts.dexFactory,
    token,
    wbnb: ctx.contracts.wbnb,
    initCodeHash: ctx.pairInitCodeHash,
  });
  return {
    to: ctx.contracts.serviceRegistry,
    data: encodeFunctionData({
      abi: serviceRegistryAbi,
      functionName: "registerToken",
      args: [
        token,
        pair,
        need(saga.wallet_address, "wallet"),
        need(saga.treasury_address, "treasury"),
        BigInt(need(saga.eip8004_token_id, "identity")),
        created.blockNumber,
      ],
    }),
  };
}

/** Funding and the treasury Safe, signed with consecutive relayer nonces and sent together. */
const fundingSent: Step = async (ctx, saga) => {
  const plan = await treasuryPlan(ctx, saga);
  // The treasury is stored beside the chain reads, not before them: it is deterministic per
  // agent (identity-prepared derives the same), and it is stored before anything is signed.
  const [, [fund, safe]] = await Promise.all([
    saga.treasury_address === plan.address
      ? undefined
      : patchSaga(ctx.sql, saga, { treasury_address: plan.address }),
    (async () => {
      // A kill in another lane may have cut the store's own kill point short: this is the
      // same state (stored, not yet sent).
      if (saga.fund_tx || saga.safe_tx) killPoint(ctx, saga, "funding-stored");
      // A resumed saga re-sends what it stored; funding-mined decides whether it was dropped.
      await rebroadcastRelayerTxs(ctx, [saga.fund_tx, saga.safe_tx]);
      return Promise.all([
        saga.fund_tx ? null : fundCall(ctx, saga),
        saga.safe_tx ? null : safeCall(ctx, saga),
      ]);
    })(),
  ]);
  const calls = [fund, safe].filter((c): c is RelayerCall => c !== null);
  if (calls.length === 0) return "skipped";
  await sendRelayerTxs(ctx, calls, async (txs) => {
    const patch: SagaPatch = {};
    let i = 0;
    if (fund) patch.fund_tx = txs[i++] as StoredTx;
    if (safe) patch.safe_tx = txs[i++] as StoredTx;
    await patchSaga(ctx.sql, saga, patch);
    killPoint(ctx, saga, "funding-stored");
  });
  return "done";
};

/**
 * A step that sees the relayer's transaction stored in `column` mined: a dropped one is
 * re-checked with `call` (null: no longer needed) and sent again, and the new one stored.
 */
function relayerTxMined(
  column: "fund_tx" | "safe_tx" | "register_tx",
  call: (ctx: SagaContext, saga: SagaRow) => Promise<RelayerCall | null>,
): Step {
  return async (ctx, saga) => {
    await settleRelayerTx({
      ctx,
      stored: saga[column],
      needed: () => call(ctx, saga),
      save: (tx) => patchSaga(ctx.sql, saga, { [column]: tx }),
    });
    return "done";
  };
}

/**
 * The wallet's funding mined (a dropped one is re-checked and sent again); nothing to wait for
 * when the wallet was prepared with the launch's budget, so createToken goes out at once.
 */
const fundingMined: Step = async (ctx, saga) => {
  if (!saga.fund_tx && !(await fundCall(ctx, saga))) return "skipped";
  return relayerTxMined("fund_tx", fundCall)(ctx, saga);
};

/** The treasury Safe mined (a dropped one is re-checked and sent again); createToken does not wait for it. */
const safeMined = relayerTxMined("safe_tx", safeCall);

const registeredEvent = getAbiItem({ abi: identityRegistryDevnetAbi, name: "Registered" });

/**
 * The ERC-8004 identity from a wallet prepared before the request (prepare.ts): it holds its
 * gas already, so it registers now, beside the funding and the Safe (the same block). Any other
 * wallet cannot pay yet (the node refuses the transaction): `identity-sent` sends it once the
 * funding is mined.
 */
const identityPrepared: Step = async (ctx, saga) => {
  if (saga.eip8004_token_id !== null || saga.identity_tx) return "skipped";
  const [balance, gas, plan] = await Promise.all([
    ctx.client.getBalance({ address: need(saga.wallet_address, "wallet") }),
    identityGas(ctx),
    // funding-sent stores the same address at the same time: it is deterministic per agent.
    treasuryPlan(ctx, saga),
  ]);
  if (balance < gas) return "skipped";
  return sendIdentity(ctx, saga, plan.address);
};

/** The ERC-8004 identity, sent from the (now funded) agent wallet; skipped if it owns one. */
const identitySent: Step = async (ctx, saga) => {
  if (saga.eip8004_token_id !== null || saga.identity_tx) return "skipped";
  return sendIdentity(ctx, saga, need(saga.treasury_address, "treasury"));
};

async function sendIdentity(
  ctx: SagaContext,
  saga: SagaRow,
  treasury: Address,
): Promise<"done" | "skipped"> {
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
  // The signer stores the signed transaction per idempotency key: a retry re-sends the same one.
  const { txHash } = await ctx.steward.sendTransaction(need(saga.wallet_id, "wallet"), {
    to: ctx.contracts.identityRegistry,
    idempotencyKey: "identity",
    data: encodeFunctionData({
      abi: identityRegistryDevnetAbi,
      functionName: "register",
      args: [
        `${ctx.apiUrl}${registrationPath(saga.agent_id)}`,
        [{ metadataKey: "treasury", metadataValue: treasury }],
      ],
    }),
  });
  await patchSaga(ctx.sql, saga, { identity_tx: txHash });
  return "done";
}

/** The identity's token id from its Registered event. */
const identityMined: Step = async (ctx, saga) => {
  if (saga.eip8004_token_id !== null) return "skipped";
  const hash = need(saga.identity_tx, "identity transaction");
  const receipt = await ctx.client.waitForTransactionReceipt({ hash, ...receiptWait });
  const [ev] = parseEventLogs({
    abi: identityRegistryDevnetAbi,
    logs: receipt.logs,
    eventName: "Registered",
  });
  if (receipt.status !== "success" || !ev) throw new Error(`identity registration ${hash} failed`);
  await patchSaga(ctx.sql, saga, { eip8004_token_id: String(ev.args.agentId) });
  return "done";
};

/**
 * The createToken call as four.meme's guide makes it: its args unchanged, value = the launch
 * fee and the first buy (preSale) with its fee.
 */
async function createCall(ctx: SagaContext, saga: SagaRow) {
  const [fee, firstBuy] = await Promise.all([
    launchFee(ctx),
    firstBuyValue(ctx, firstBuyWei(saga)),
  ]);
  return {
    to: ctx.contracts.tokenManager2,
    value: fee + firstBuy,
    data: encodeFunctionData({
      abi: tokenManager2Abi,
      functionName: "createToken",
      args: [need(saga.create_arg, "create args"), need(saga.create_signature, "signature")],
    }),
  };
}

/** createToken, signed by the agent's wallet through the signer; nothing is sent before it. */
const createSent: Step = async (ctx, saga) => {
  if (saga.token_address || saga.create_tx) return "skipped";
  let hash: `0x${string}`;
  try {
    const call = await createCall(ctx, saga);
    ({ txHash: hash } = await ctx.steward.sendTransaction(need(saga.wallet_id, "wallet"), {
      to: call.to,
      value: call.value.toString(),
      // One key per signed args: the signer returns the same transaction on a retry, so a
      // crash after createToken resumes from its receipt and never creates a second token.
      idempotencyKey: `create:${keccak256(call.data)}`,
      data: call.data,
    }));
  } catch (error) {
    // The signer estimates gas first: Steward answers a revert as an RPC failure (502).
    if (
      error instanceof UpstreamError &&
      error.status === 502 &&
      /revert/i.test(error.details ?? "")
    ) {
      throw new SagaError("LAUNCHPAD_ERROR", `createToken would revert: ${error.details ?? ""}`, {
        cause: error,
      });
    }
    throw error;
  }
  await patchSaga(ctx.sql, saga, { create_tx: hash });
  return "done";
};

/**
 * The token from TokenCreate in createToken's receipt (four.meme names it nowhere else), which
 * must be the token asked for: the request's name and ticker, created by our wallet; and the
 * first buy from its TokenPurchase for the wallet.
 */
const createMined: Step = async (ctx, saga) => {
  if (saga.token_address) return "skipped";
  const hash = need(saga.create_tx, "create transaction");
  const receipt = await ctx.client.waitForTransactionReceipt({ hash, ...receiptWait });
  if (receipt.status !== "success")
    throw new SagaError("LAUNCHPAD_ERROR", `createToken ${hash} reverted`);
  const [ev] = parseEventLogs({
    abi: tokenManager2Abi,
    logs: receipt.logs,
    eventName: "TokenCreate",
  });
  if (!ev) throw new SagaError("LAUNCHPAD_ERROR", `createToken ${hash} emitted no TokenCreate`);
  const r = saga.request;
  const differs = [
    ev.args.name !== r.name && "name",
    ev.args.symbol !== r.ticker && "symbol",
    lower(ev.args.creator as Address) !== saga.wallet_address && "creator",
  ].filter(Boolean);
  if (differs.length > 0) {
    ctx.log.error(
      { agentId: saga.agent_id, create: hash, differs, event: ev.args },
      "TokenCreate differs from the launch request",
    );
    throw new SagaError(
      "LAUNCHPAD_ERROR",
      `createToken ${hash} created another token than asked (${differs.join(", ")} differ)`,
    );
  }
  const token = lower(ev.args.token as Address);
  // The first buy: createToken's TokenPurchase of this token for the wallet (none without one).
  const bought = parseEventLogs({
    abi: tokenManager2Abi,
    logs: receipt.logs,
    eventName: "TokenPurchase",
  }).find((p) => lower(p.args.token) === token && lower(p.args.account) === saga.wallet_address);
  await patchSaga(ctx.sql, saga, {
    token_address: token,
    request_id: String(ev.args.requestId),
    first_buy: bought
      ? {
          tokens: bought.args.amount.toString(),
          costWei: bought.args.cost.toString(),
          feeWei: bought.args.fee.toString(),
        }
      : null,
  });
  return "done";
};

/**
 * The ServiceRegistry entry of the created token, stored before it is broadcast (a resumed
 * step re-sends the stored one). It follows the creation, so the launch waits on nothing
 * before createToken; the indexer reads the token's logs from its creation block on.
 */
const registerSent: Step = async (ctx, saga) => {
  if (saga.register_tx) {
    await rebroadcastRelayerTxs(ctx, [saga.register_tx]);
    // Stored but unknown to the node: it never went out and its nonce may be gone;
    // register-mined re-checks the chain and signs anew.
    return "skipped";
  }
  const entry = await registerCall(ctx, saga);
  if (!entry) return "skipped";
  await sendRelayerTxs(ctx, [entry], async ([tx]) => {
    await patchSaga(ctx.sql, saga, { register_tx: tx });
    killPoint(ctx, saga, "register-stored");
  });
  return "done";
};

/** The entry mined (a dropped one is re-checked and sent again). */
const registerMined = relayerTxMined("register_tx", registerCall);

/** Every step by name (the plan is in step-names.ts). */
export const STEPS: Record<SagaStep, Step> = {
  wallet,
  "funding-sent": fundingSent,
  launchpad,
  "identity-prepared": identityPrepared,
  "funding-mined": fundingMined,
  "safe-mined": safeMined,
  "identity-sent": identitySent,
  "identity-mined": identityMined,
  "create-sent": createSent,
  "create-mined": createMined,
  "register-sent": registerSent,
  "register-mined": registerMined,
};
