import { setTimeout as sleep } from "node:timers/promises";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  parseEther,
  parseEventLogs,
  zeroAddress,
} from "viem";
import { safeL2Abi } from "../../abis/SafeL2.ts";
import { viemChain } from "../../lib/chain.ts";
import { devnetAccounts } from "../accounts.ts";
import { DEVNET_LIMITS } from "../limits.ts";

/**
 * The seed is a client of its own, as an operator's tool would be: its own API key, so its
 * requests count apart from the Safe poller's keyless ones under the stand-in's 5 a second
 * (devnet/stand-ins/safe-tx-service/throttle.ts). The stand-in accepts any key.
 */
const SEED_KEY = { authorization: "Bearer devnet-seed" };

/** The treasury transaction of each seed run: BNB in from the platform, a little out to the agent. */
export const SAFE_SEED = { fund: parseEther("0.01"), pay: parseEther("0.001") } as const;

type Listed = { results: { safeTxHash: string; isExecuted: boolean }[] };

/**
 * A Safe transaction of the agent's treasury, proposed, confirmed and executed. Locally the
 * platform account co-owns every treasury (devnet/config.ts: SAFE_OWNERS) with threshold 1, so
 * the seed acts as that co-owner: it funds the Safe, proposes a payment to the agent's wallet
 * to the Safe Transaction Service with its signature (the proposal's confirmation), executes it
 * on the chain, and waits until the service lists it executed (the stand-in learns executions
 * from the chain's `ExecutionSuccess` when the Safe's transactions are listed). Returns the
 * safeTxHash, or undefined (and says why) when the platform cannot execute alone.
 */
export async function seedSafe(p: {
  rpcUrl: string;
  chainId: number;
  serviceUrl: string;
  safe: Address;
  /** Who the Safe pays (the agent's wallet). */
  payee: Address;
  log: (line: string) => void;
}): Promise<Hex | undefined> {
  const chain = viemChain({ id: p.chainId, name: "devnet", rpcUrls: [p.rpcUrl] });
  const client = createPublicClient({ chain, transport: http(p.rpcUrl) });
  const platform = devnetAccounts().platform;
  const wallet = createWalletClient({ account: platform, chain, transport: http(p.rpcUrl) });
  const safe = getAddress(p.safe);
  const read = <F extends "getOwners" | "getThreshold" | "nonce">(functionName: F) =>
    client.readContract({ address: safe, abi: safeL2Abi, functionName });
  const [owners, threshold] = await Promise.all([read("getOwners"), read("getThreshold")]);
  if (!owners.includes(platform.address) || threshold !== 1n) {
    p.log(`safe: the platform account cannot execute alone for ${safe}: no treasury transaction`);
    return undefined;
  }
  const wait = (hash: Hex) => client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  await wait(await wallet.sendTransaction({ to: safe, value: SAFE_SEED.fund }));

  const tx = {
    to: getAddress(p.payee),
    value: SAFE_SEED.pay,
    data: "0x" as Hex,
    operation: 0,
    safeTxGas: 0n,
    baseGas: 0n,
    gasPrice: 0n,
    gasToken: zeroAddress,
    refundReceiver: zeroAddress,
    nonce: await read("nonce"),
  } as const;
  const order = [
    tx.to,
    tx.value,
    tx.data,
    tx.operation,
    tx.safeTxGas,
    tx.baseGas,
    tx.gasPrice,
    tx.gasToken,
    tx.refundReceiver,
  ] as const;
  const hash = await client.readContract({
    address: safe,
    abi: safeL2Abi,
    functionName: "getTransactionHash",
    args: [...order, tx.nonce],
  });
  const signature = await platform.sign({ hash });

  const proposed = await fetch(`${p.serviceUrl}/api/v2/safes/${safe}/multisig-transactions/`, {
    method: "POST",
    headers: { "content-type": "application/json", ...SEED_KEY },
    body: JSON.stringify({
      ...tx,
      value: String(tx.value),
      safeTxGas: "0",
      baseGas: "0",
      gasPrice: "0",
      nonce: String(tx.nonce),
      contractTransactionHash: hash,
      sender: platform.address,
      signature,
      origin: "devnet seed",
    }),
  });
  const answer = await proposed.text();
  // A proposal left by an interrupted run (same nonce, same transaction) is this one.
  if (proposed.status !== 201 && !answer.includes("already exists"))
    throw new Error(
      `the Safe Transaction Service refused the proposal: ${proposed.status} ${answer}`,
    );

  const receipt = await wait(
    await wallet.writeContract({
      address: safe,
      abi: safeL2Abi,
      functionName: "execTransaction",
      args: [...order, signature],
    }),
  );
  const [ok] = parseEventLogs({
    abi: safeL2Abi,
    logs: receipt.logs,
    eventName: "ExecutionSuccess",
  });
  if (!ok)
    throw new Error(`the Safe transaction ${hash} did not execute (${receipt.transactionHash})`);

  const deadline = Date.now() + DEVNET_LIMITS.seedSafeServiceWaitMs;
  for (;;) {
    const r = await fetch(
      `${p.serviceUrl}/api/v2/safes/${safe}/multisig-transactions/?executed=true`,
      { headers: SEED_KEY },
    );
    const listed = r.ok ? ((await r.json()) as Listed).results : [];
    if (listed.some((t) => t.safeTxHash.toLowerCase() === hash.toLowerCase() && t.isExecuted))
      break;
    if (Date.now() > deadline)
      throw new Error(`the Safe Transaction Service does not list ${hash} as executed`);
    await sleep(250);
  }
  p.log(
    `safe: ${hash} proposed and confirmed by the platform co-owner, executed in ${receipt.transactionHash}`,
  );
  return hash;
}
