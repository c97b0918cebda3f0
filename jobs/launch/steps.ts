import {
  type Address,
  encodeFunctionData,
  encodePacked,
  formatEther,
  getCreate2Address,
  type Hex,
  keccak256,
  toHex,
  zeroAddress,
} from "viem";
import { safeL2Abi } from "../../abis/SafeL2.ts";
import { safeProxyFactoryAbi } from "../../abis/SafeProxyFactory.ts";
import { checkImage } from "../../lib/image/check.ts";
import type { SagaContext } from "./context.ts";
import { SagaError } from "./errors.ts";
import { antiSniper, firstBuyWei } from "./first-buy.ts";
import { fourmemeImage, fourmemeSession, withFreshOnRefusal } from "./fourmeme.ts";
import { patchSaga, type SagaRow } from "./row.ts";

/** A step: does its work only if the chain or the upstream does not already show it done. */
export type Step = (ctx: SagaContext, saga: SagaRow) => Promise<"done" | "skipped">;

export const lower = (a: string) => a.toLowerCase() as Address;
/** A value an earlier step stored; its absence is a bug in the plan, not a user error. */
export const need = <T>(v: T | null, what: string): T => {
  if (v === null || v === undefined) throw new Error(`saga state lacks ${what}`);
  return v;
};

/** Path of the ERC-8004 registration file the API serves for an agent. */
export const registrationPath = (agentId: string) => `/v2/registrations/${agentId}.json`;

/** The agent's wallet from the signer (the signer itself answers idempotently per agent). */
export const wallet: Step = async (ctx, saga) => {
  if (saga.wallet_id) return "skipped";
  const w = await ctx.steward.provisionWallet({ agentId: saga.agent_id });
  await patchSaga(ctx.sql, saga, { wallet_id: w.walletId, wallet_address: lower(w.address) });
  return "done";
};

// The factory's proxy code never changes: read once per process, not once per launch.
const proxyCodes = new Map<Address, Promise<Hex>>();
function proxyCreationCode(ctx: SagaContext): Promise<Hex> {
  const factory = ctx.contracts.safeProxyFactory;
  let code = proxyCodes.get(factory);
  if (!code) {
    code = ctx.client.readContract({
      address: factory,
      abi: safeProxyFactoryAbi,
      functionName: "proxyCreationCode",
    });
    code.catch(() => proxyCodes.delete(factory));
    proxyCodes.set(factory, code);
  }
  return code;
}

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
  const proxyCode = await proxyCreationCode(ctx);
  const address = getCreate2Address({
    from: ctx.contracts.safeProxyFactory,
    salt: keccak256(encodePacked(["bytes32", "uint256"], [keccak256(initializer), saltNonce])),
    bytecodeHash: keccak256(
      encodePacked(["bytes", "uint256"], [proxyCode, BigInt(ctx.contracts.safeL2Singleton)]),
    ),
  });
  return { initializer, saltNonce, address: lower(address) };
}

/**
 * The signed `{createArg, signature}` from four.meme's create API, as its create guide runs it:
 * the public config (for `raisedToken`), the wallet's login and the check of the agent's image
 * at once, then the upload of that image (the token's `imgUrl` is four.meme's copy), then
 * create. The login and the upload are kept (fourmeme.ts): a wallet prepared before the request
 * logged in then, and an image already uploaded is not sent again. The treasury it names is the
 * Safe's CREATE2 address, which needs neither the Safe nor funding-sent, so this runs beside
 * them. The body asks for the agent's first buy (`preSale`) and AntiSniperFeeMode (`feePlan`)
 * as the request did. Both answers are stored as they came: never decoded, never changed.
 */
export const launchpad: Step = async (ctx, saga) => {
  if (saga.create_arg) return "skipped";
  const wallet = {
    agentId: saga.agent_id,
    walletId: need(saga.wallet_id, "wallet"),
    address: need(saga.wallet_address, "wallet"),
  };
  const r = saga.request;
  const [plan, session, image, presets] = await Promise.all([
    treasuryPlan(ctx, saga),
    fourmemeSession(ctx, wallet),
    checkImage({ url: r.imageUrl, trustedOrigins: ctx.trustedImageOrigins }),
    ctx.launchpad.publicConfig(),
  ]);
  const raisedToken = presets.find((t) => t.symbol === "BNB" && t.status === "PUBLISH");
  if (!raisedToken)
    throw new SagaError("LAUNCHPAD_ERROR", "four.meme's public config offers no BNB raise");
  const created = await withFreshOnRefusal(async (fresh, used) => {
    const token = fresh ? (await fourmemeSession(ctx, wallet, { fresh })).token : session.token;
    used(session.kept);
    const img = await fourmemeImage(ctx, saga.agent_id, token, image, { fresh });
    used(img.kept);
    return ctx.launchpad.create(token, {
      name: r.name,
      shortName: r.ticker,
      desc: r.description,
      imgUrl: img.url,
      launchTime: Date.now(),
      label: "AI",
      lpTradingFee: 0.0025,
      // four.meme takes the first buy in BNB as a decimal string ("0" for none), exact to the wei.
      preSale: formatEther(firstBuyWei(saga)),
      onlyMPC: false,
      feePlan: antiSniper(saga),
      tokenTaxInfo: { ...ctx.tokenTerms, recipientAddress: plan.address },
      raisedToken,
    });
  });
  await patchSaga(ctx.sql, saga, {
    create_arg: created.createArg,
    create_signature: created.signature,
  });
  return "done";
};
