import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pino } from "pino";
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  parseEther,
  zeroAddress,
} from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { safeL2Abi } from "../../../abis/SafeL2.ts";
import { safeProxyFactoryAbi } from "../../../abis/SafeProxyFactory.ts";
import { loadExternalArtifact } from "../../../contracts/external.ts";
import { freePort } from "../../../lib/local/net.ts";
import { ProtocolKit as Safe, SafeApiKit } from "../../../services/safe-tx-service/kits.ts";
import { MultisigTransaction } from "../../../services/safe-tx-service/protocol.ts";
import { recorded, shapeDiff } from "../../../test/contracts/shape.ts";
import { DEVNET_MNEMONIC, startAnvil } from "../../anvil.ts";
import { startSafeTxServiceStandIn } from "./start.ts";

// The stand-in judged by the real SDKs: @safe-global/api-kit reads and writes it, and
// @safe-global/protocol-kit builds, signs (EIP-712 and eth_sign) and finally executes on a
// real anvil chain a transaction read back from it, as a Safe owner's wallet would.

let anvil: Awaited<ReturnType<typeof startAnvil>>;
let standIn: Awaited<ReturnType<typeof startSafeTxServiceStandIn>>;
let api: SafeApiKit;
let safe: Address;
let contracts: Record<string, Address>;
const k1 = generatePrivateKey();
const k2 = generatePrivateKey();
const owner1 = privateKeyToAccount(k1);
const owner2 = privateKeyToAccount(k2);
const MULTI_SEND =
  "@safe-global/safe-contracts/build/artifacts/contracts/libraries/MultiSend.sol/MultiSend.json";
const recipient = getAddress(privateKeyToAccount(generatePrivateKey()).address);

beforeAll(async () => {
  anvil = await startAnvil({ port: await freePort(), blockTime: 0 });
  const deployer = mnemonicToAccount(DEVNET_MNEMONIC);
  const wallet = createWalletClient({ account: deployer, transport: http(anvil.rpcUrl) });
  const chain = createPublicClient({ transport: http(anvil.rpcUrl) });
  const deploy = async (name: Parameters<typeof loadExternalArtifact>[0] | "MultiSend") => {
    // protocol-kit also wants MultiSend, which the devnet does not deploy.
    const a =
      name === "MultiSend"
        ? (JSON.parse(readFileSync(createRequire(import.meta.url).resolve(MULTI_SEND), "utf8")) as {
            abi: Abi;
            bytecode: Hex;
          })
        : loadExternalArtifact(name);
    const hash = await wallet.deployContract({ abi: a.abi, bytecode: a.bytecode, chain: null });
    const r = await chain.waitForTransactionReceipt({ hash });
    return getAddress(r.contractAddress as Address);
  };
  contracts = {
    safeSingletonAddress: await deploy("SafeL2"),
    safeProxyFactoryAddress: await deploy("SafeProxyFactory"),
    fallbackHandlerAddress: await deploy("CompatibilityFallbackHandler"),
    multiSendCallOnlyAddress: await deploy("MultiSendCallOnly"),
    multiSendAddress: await deploy("MultiSend"),
  };
  const setup = encodeFunctionData({
    abi: safeL2Abi,
    functionName: "setup",
    args: [
      [owner1.address, owner2.address],
      2n,
      zeroAddress,
      "0x",
      contracts.fallbackHandlerAddress as Address,
      zeroAddress,
      0n,
      zeroAddress,
    ],
  });
  const create = {
    address: contracts.safeProxyFactoryAddress as Address,
    abi: safeProxyFactoryAbi,
    functionName: "createProxyWithNonce",
    args: [contracts.safeSingletonAddress as Address, setup, 1n],
    account: deployer,
  } as const;
  safe = getAddress((await chain.simulateContract(create)).result);
  await chain.waitForTransactionReceipt({
    hash: await wallet.writeContract({ ...create, chain: null }),
  });
  // The Safe holds what it sends; owner1 pays the gas of the execution.
  for (const to of [safe, owner1.address]) {
    await chain.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to, value: parseEther("1"), chain: null }),
    });
  }
  standIn = await startSafeTxServiceStandIn({
    chainId: 56,
    rpcUrl: anvil.rpcUrl,
    log: pino({ level: "silent" }),
    // The kits ask several paths per call, back to back, past the hosted API's 5 a second; the
    // protocol is under test here, the limit in throttle.test.ts.
    requestsPerSecond: 1_000,
  });
  api = new SafeApiKit({ chainId: 56n, txServiceUrl: `${standIn.url}/api` });
}, 60_000);

afterAll(async () => {
  await standIn?.stop();
  await anvil?.stop();
});

const kit = (signer: Hex) =>
  Safe.init({
    provider: anvil.rpcUrl,
    signer,
    safeAddress: safe,
    contractNetworks: { "56": contracts },
  });

describe("Safe Transaction Service stand-in, driven by @safe-global/api-kit and protocol-kit", () => {
  let hash: string;

  it("answers getServiceInfo and getSafeInfo (nonce, owners, threshold) from the chain", async () => {
    const about = await api.getServiceInfo();
    expect(about.name).toBe("Safe Transaction Service");
    expect(about.api_version).toBe("v1");
    const info = await api.getSafeInfo(safe);
    expect(info).toMatchObject({ address: safe, nonce: "0", threshold: 2, version: "1.4.1" });
    expect(info.owners.sort()).toEqual([owner1.address, owner2.address].sort());
    expect(info.singleton).toBe(contracts.safeSingletonAddress);
    expect(info.fallbackHandler).toBe(contracts.fallbackHandlerAddress);
    // The raw answer in the shape recorded from the service (test/contracts/safe-tx-service/).
    const raw = await (await fetch(`${standIn.url}/api/v1/safes/${safe}/`)).json();
    const fixture = recorded(
      new URL("../../../test/contracts/safe-tx-service/", import.meta.url),
      "safe-info",
    );
    expect(shapeDiff(raw, fixture.response.body)).toEqual([]);
  });

  it("takes a proposal signed with EIP-712 by protocol-kit and lists it as pending", async () => {
    const k = await kit(k1);
    const tx = await k.createTransaction({
      transactions: [{ to: recipient, value: parseEther("0.1").toString(), data: "0x" }],
    });
    hash = await k.getTransactionHash(tx);
    const signed = await k.signTransaction(tx, "eth_signTypedData_v4");
    await api.proposeTransaction({
      safeAddress: safe,
      safeTransactionData: signed.data,
      safeTxHash: hash,
      senderAddress: owner1.address,
      senderSignature: signed.getSignature(owner1.address)?.data as string,
      origin: "launchpad test",
    });
    const pending = await api.getPendingTransactions(safe);
    expect(pending.results.map((t) => t.safeTxHash)).toEqual([hash]);
    const withNonce = await api.getPendingTransactions(safe, { currentNonce: 1 });
    expect(withNonce.count).toBe(0);
    const [t] = pending.results;
    expect(t).toMatchObject({ proposer: owner1.address, confirmationsRequired: 2, trusted: true });
    expect(t?.confirmations?.map((c) => [c.owner, c.signatureType])).toEqual([
      [owner1.address, "EOA"],
    ]);
  });

  it("takes a confirmation signed with eth_sign by protocol-kit (signHash)", async () => {
    const signature = await (await kit(k2)).signHash(hash);
    await api.confirmTransaction(hash, signature.data);
    const t = await api.getTransaction(hash);
    expect(t.confirmations?.map((c) => [c.owner, c.signatureType])).toEqual([
      [owner1.address, "EOA"],
      [owner2.address, "ETH_SIGN"],
    ]);
    expect(() => MultisigTransaction.parse(t)).not.toThrow();
  });

  it("serves every field protocol-kit needs to execute the transaction it lists", async () => {
    const listed = await api.getMultisigTransactions(safe, { executed: false });
    const [t] = listed.results;
    if (!t) throw new Error("the proposal is not listed");
    for (const f of ["safeTxGas", "baseGas", "gasPrice", "gasToken", "refundReceiver"] as const) {
      expect(t[f], f).toBeDefined();
    }
    const k = await kit(k1);
    expect(await k.isValidTransaction(t)).toBe(true);
    const r = await k.executeTransaction(t);
    const chain = createPublicClient({ transport: http(anvil.rpcUrl) });
    await chain.waitForTransactionReceipt({ hash: r.hash as Hex });
    expect(await chain.getBalance({ address: recipient })).toBe(parseEther("0.1"));

    const done = await api.getTransaction(hash);
    expect(done).toMatchObject({ isExecuted: true, isSuccessful: true, transactionHash: r.hash });
    expect(done.executor).toBe(owner1.address);
    expect(done.signatures).toMatch(/^0x[0-9a-f]{260}$/);
    expect(done.gasUsed).toBeGreaterThan(0);
    expect((await api.getSafeInfo(safe)).nonce).toBe("1");
    expect((await api.getPendingTransactions(safe)).count).toBe(0);
  });

  it("refuses as the service does: 404 {detail}, 422 hash mismatch, 400 non-owner signature", async () => {
    const unknown = `0x${"ab".repeat(32)}`;
    await expect(api.getTransaction(unknown)).rejects.toMatchObject({
      statusCode: 404,
      data: { detail: "No MultisigTransaction matches the given query." },
    });
    const k = await kit(k1);
    const tx = await k.createTransaction({
      transactions: [{ to: recipient, value: "1", data: "0x" }],
    });
    const good = await k.getTransactionHash(tx);
    const signed = await k.signTransaction(tx);
    const body = {
      safeAddress: safe,
      safeTransactionData: signed.data,
      senderAddress: owner1.address,
      senderSignature: signed.getSignature(owner1.address)?.data as string,
    };
    await expect(api.proposeTransaction({ ...body, safeTxHash: unknown })).rejects.toMatchObject({
      statusCode: 422,
    });
    await api.proposeTransaction({ ...body, safeTxHash: good });
    const stranger = await privateKeyToAccount(generatePrivateKey()).sign({ hash: good as Hex });
    await expect(api.confirmTransaction(good, stranger)).rejects.toMatchObject({ statusCode: 400 });
    expect((await api.getTransaction(good)).confirmations).toHaveLength(1);
  });
});
