import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  http,
  keccak256,
  parseEther,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { uniswapV2Router02Abi } from "../../abis/UniswapV2Router02.ts";
import type { DeploymentRecord } from "../../devnet/record.ts";
import { prng } from "./scenario.ts";

export type TradeBurstParameters = {
  rpcUrl: string;
  record: DeploymentRecord;
  seed: number;
  /** Curve tokens to buy and sell on. */
  curveTokens: Address[];
  /** A graduated token to buy on the DEX, if any. */
  dexToken?: Address;
  /** Transactions (one block each on automine). */
  count: number;
};

/**
 * A short burst of trades and transfers from one fresh seeded wallet: a few blocks of activity,
 * small enough to stay inside Ponder's unfinalized window (30 blocks) for reorg tests.
 *
 * @example
 * await tradeBurst({ rpcUrl, record, seed: 8, curveTokens: [t1], dexToken: t0, count: 8 });
 */
export async function tradeBurst(p: TradeBurstParameters): Promise<void> {
  const random = prng(p.seed);
  const chain = defineChain({
    id: p.record.chainId,
    name: "devnet",
    nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
    rpcUrls: { default: { http: [p.rpcUrl] } },
  });
  const transport = http(p.rpcUrl);
  const client = createPublicClient({ chain, transport, pollingInterval: 20 });
  const me = privateKeyToAccount(keccak256(toHex(`indexer-burst:${p.seed}`)));
  await createTestClient({ chain, mode: "anvil", transport }).setBalance({
    address: me.address,
    value: parseEther("100"),
  });
  const w = createWalletClient({ account: me, chain, transport });
  const c = p.record.contracts;
  const friend = privateKeyToAccount(keccak256(toHex(`indexer-burst-friend:${p.seed}`))).address;
  for (let k = 0; k < p.count; k++) {
    const token = p.curveTokens[k % p.curveTokens.length] as Address;
    const funds = parseEther("0.02") + random(parseEther("0.3"));
    let hash: `0x${string}`;
    if (p.dexToken && k % 4 === 3) {
      hash = await w.writeContract({
        address: c.uniswapV2Router,
        abi: uniswapV2Router02Abi,
        functionName: "swapExactETHForTokensSupportingFeeOnTransferTokens",
        args: [0n, [c.wbnb, p.dexToken], me.address, 2n ** 40n],
        value: funds,
        gas: 600_000n,
      });
    } else if (k % 4 === 2) {
      const held = await client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [me.address],
      });
      hash = await w.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: "transfer",
        args: [friend, held / 2n],
        gas: 200_000n,
      });
    } else {
      hash = await w.writeContract({
        address: c.tokenManager2,
        abi: tokenManager2Abi,
        functionName: "buyTokenAMAP",
        args: [token, funds, 0n],
        value: funds,
        gas: 600_000n,
      });
    }
    const r = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (r.status !== "success") throw new Error(`burst tx ${hash} reverted`);
  }
}
