import {
  type Address,
  getAddress,
  type LocalAccount,
  type PublicClient,
  parseEventLogs,
} from "viem";
import { identityRegistryDevnetAbi } from "../../abis/IdentityRegistryDevnet.ts";
import { safeProxyFactoryAbi } from "../../abis/SafeProxyFactory.ts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { signCreateArgs } from "../../lib/create-args.ts";
import type { DeploymentRecord } from "../record.ts";
import { predictServiceToken } from "../service-token.ts";
import { createTokenCall, identityCall, registerTokenCall, safeCall } from "./calls.ts";
import { eachOf, type StoryCall, type StoryWorld } from "./world.ts";

export type ServiceTokenCallsParameters = {
  client: PublicClient;
  record: DeploymentRecord;
  /** Signs createToken args (the devnet's `launchpadSigner`). */
  signer: LocalAccount;
  name: string;
  symbol: string;
  requestId: bigint;
  creator: Address;
  treasury: Address;
  agentId: bigint;
};

/**
 * What the launch saga does for a token, as two calls: the creator's signed createToken, then
 * the relayer's ServiceRegistry entry for the created token (given the block it was created in).
 * The devnet's TokenManager2 deploys with CREATE2, so the token is known before it exists.
 */
export async function serviceTokenCalls(p: ServiceTokenCallsParameters): Promise<{
  token: Address;
  pair: Address;
  create: StoryCall;
  register: (createdBlock: bigint) => StoryCall;
}> {
  const args = {
    name: p.name,
    symbol: p.symbol,
    requestId: p.requestId,
    creator: p.creator,
    recipient: p.treasury,
  };
  const { token, pair } = await predictServiceToken({ client: p.client, record: p.record, args });
  const register = (createdBlock: bigint) =>
    registerTokenCall(p.record.contracts, {
      ...args,
      treasury: p.treasury,
      token,
      pair,
      agentId: p.agentId,
      createdBlock,
    });
  const signed = await signCreateArgs({
    ...args,
    signer: p.signer,
    chainId: p.record.chainId,
    tokenManager: p.record.contracts.tokenManager2,
  });
  return { token, pair, register, create: createTokenCall(p.record, signed) };
}

export type CreateServiceTokensParameters = {
  /** One per token; `register: false` creates it on TokenManager2 without the ServiceRegistry. */
  creators: { account: LocalAccount; register: boolean }[];
  /** Makes the request ids unique per run. */
  seed: number;
  /** Treasury: a 1-of-1 Safe per creator (as the saga makes) or a plain storyline wallet. */
  safeTreasury: boolean;
  parallel: boolean;
  name: (i: number) => { name: string; symbol: string };
};

/**
 * Creates service tokens the way the launch saga does: an ERC-8004 identity, a treasury, the
 * signed createToken, then the registry entry for the created token. Returns the addresses in
 * the order of `creators`.
 *
 * @example
 * const [token] = await createServiceTokens(world, { creators: [{ account, register: true }], ... });
 */
export async function createServiceTokens(
  world: StoryWorld,
  p: CreateServiceTokensParameters,
): Promise<Address[]> {
  const c = world.record.contracts;
  return eachOf(p.creators, p.parallel, async ({ account, register }, i) => {
    const id = await world.send(
      account,
      identityCall(c, `https://agents.example/${p.seed}/${i}.json`),
    );
    const [registered] = parseEventLogs({
      abi: identityRegistryDevnetAbi,
      logs: id.logs,
      eventName: "Registered",
    });
    let treasury = world.account(`treasury${i}`).address;
    if (p.safeTreasury) {
      const safe = await world.send(account, safeCall(c, account.address, BigInt(i)));
      const [proxy] = parseEventLogs({
        abi: safeProxyFactoryAbi,
        logs: safe.logs,
        eventName: "ProxyCreation",
      });
      treasury = proxy?.args.proxy ?? treasury;
    }
    const calls = await serviceTokenCalls({
      client: world.client,
      record: world.record,
      signer: world.roles.launchpadSigner,
      ...p.name(i),
      requestId: BigInt(p.seed) * 1000n + BigInt(i),
      creator: account.address,
      treasury,
      agentId: registered?.args.agentId ?? 0n,
    });
    const receipt = await world.send(account, calls.create);
    const [created] = parseEventLogs({
      abi: tokenManager2Abi,
      logs: receipt.logs,
      eventName: "TokenCreate",
    });
    if (created?.args.token.toLowerCase() !== calls.token.toLowerCase()) {
      throw new Error(`token created at ${created?.args.token}, predicted ${calls.token}`);
    }
    if (register) await world.send(world.roles.relayer, calls.register(receipt.blockNumber));
    return getAddress(calls.token);
  });
}
