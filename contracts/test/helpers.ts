import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hash,
  http,
  type PublicClient,
  parseEther,
  type TestClient,
  type WalletClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type StartAnvilReturnType, startAnvil } from "../../devnet/anvil.ts";
import { deployDevnet } from "../../devnet/deploy.ts";
import { minedReceipt } from "../../devnet/mined-receipt.ts";
import type { DeploymentRecord } from "../../devnet/record.ts";
import { viemChain } from "../../lib/chain.ts";
import { freePort } from "../../lib/local/net.ts";

export type TestChain = {
  anvil: StartAnvilReturnType;
  record: DeploymentRecord;
  chain: Chain;
  publicClient: PublicClient;
  testClient: TestClient;
  dataDir: string;
  /** A wallet client for `account`. */
  wallet: (account: Account) => WalletClient<ReturnType<typeof http>, Chain, Account>;
  /** A fresh account with `bnb` BNB (set directly, so no other balance changes). */
  fundedAccount: (bnb?: string) => Promise<Account>;
  /** Waits for a tx and fails the test when it reverted. */
  mined: (hash: Hash) => Promise<Awaited<ReturnType<PublicClient["waitForTransactionReceipt"]>>>;
  stop: () => Promise<void>;
};

/** Starts an automining anvil, deploys the devnet set into a temp data dir. */
export async function startTestChain(p: { maxRaisingWei?: bigint } = {}): Promise<TestChain> {
  const anvil = await startAnvil({ port: await freePort(), blockTime: 0 });
  const dataDir = mkdtempSync(join(tmpdir(), "contracts-test-"));
  try {
    const record = await deployDevnet({
      rpcUrl: anvil.rpcUrl,
      dataDir,
      maxRaisingWei: p.maxRaisingWei,
    });
    const chain = viemChain({ id: record.chainId, name: "devnet", rpcUrls: [anvil.rpcUrl] });
    const transport = http(anvil.rpcUrl);
    const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 });
    const testClient = createTestClient({ chain, mode: "anvil", transport });
    return {
      anvil,
      record,
      chain,
      publicClient,
      testClient,
      dataDir,
      wallet: (account) => createWalletClient({ account, chain, transport }),
      fundedAccount: async (bnb = "1000") => {
        const account = privateKeyToAccount(generatePrivateKey());
        await testClient.setBalance({ address: account.address, value: parseEther(bnb) });
        return account;
      },
      mined: async (hash) => {
        const receipt = await minedReceipt({
          client: publicClient as PublicClient,
          test: testClient,
          hash,
          pollingInterval: 20,
        });
        if (receipt.status !== "success") throw new Error(`tx ${hash} reverted`);
        return receipt;
      },
      stop: async () => {
        await anvil.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** BNB spent on gas by a receipt. */
export function gasCost(r: { gasUsed: bigint; effectiveGasPrice: bigint }): bigint {
  return r.gasUsed * r.effectiveGasPrice;
}

export const DEAD: Address = "0x000000000000000000000000000000000000dEaD";
