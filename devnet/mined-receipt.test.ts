import { createPublicClient, createTestClient, createWalletClient, http } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../lib/local/net.ts";
import { DEVNET_MNEMONIC, type StartAnvilReturnType, startAnvil } from "./anvil.ts";
import { minedReceipt } from "./mined-receipt.ts";

// A transaction automine left in the pool (foundry-rs/foundry#10122) still gets its receipt, in
// a block at the time the caller set. Automine is switched off here to leave one there for sure.

describe("minedReceipt", () => {
  let anvil: StartAnvilReturnType;
  beforeAll(async () => {
    anvil = await startAnvil({ port: await freePort(), blockTime: 0 });
  });
  afterAll(async () => anvil?.stop());

  it("mines a block for a stuck transaction, at the timestamp set for it", async () => {
    const transport = http(anvil.rpcUrl);
    const client = createPublicClient({ transport });
    const test = createTestClient({ mode: "anvil", transport });
    const account = mnemonicToAccount(DEVNET_MNEMONIC);
    const wallet = createWalletClient({ account, transport });
    await test.setAutomine(false);
    const at = (await client.getBlock()).timestamp + 1000n;
    await test.setNextBlockTimestamp({ timestamp: at });
    const hash = await wallet.sendTransaction({ chain: null, to: account.address, value: 1n });
    const receipt = await minedReceipt({ client, test, hash, stuckAfterMs: 300 });
    expect(receipt.status).toBe("success");
    expect((await client.getBlock({ blockNumber: receipt.blockNumber })).timestamp).toBe(at);
  });

  it("says a transaction the node does not hold is not in its pool", async () => {
    const transport = http(anvil.rpcUrl);
    const hash = `0x${"ab".repeat(32)}` as const;
    await expect(
      minedReceipt({
        client: createPublicClient({ transport }),
        test: createTestClient({ mode: "anvil", transport }),
        hash,
        stuckAfterMs: 300,
      }),
    ).rejects.toThrow(/not in the node's pool/);
  });

  it("says a transaction behind a nonce nobody sent waits for it, instead of mining in vain", async () => {
    const transport = http(anvil.rpcUrl);
    const client = createPublicClient({ transport });
    const account = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 1 });
    const wallet = createWalletClient({ account, transport });
    const nonce = await client.getTransactionCount({ address: account.address });
    // Nonce + 1 with nothing at nonce: anvil queues it, and no block can take it.
    const hash = await wallet.sendTransaction({
      chain: null,
      to: account.address,
      value: 1n,
      nonce: nonce + 1,
    });
    await expect(
      minedReceipt({
        client,
        test: createTestClient({ mode: "anvil", transport }),
        hash,
        stuckAfterMs: 300,
        nonceGapGraceMs: 0,
      }),
    ).rejects.toThrow(new RegExp(`waits behind nonce ${nonce} of 0x[0-9a-fA-F]{40}`));
  });
});
