import { keccak256, parseGwei, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { startAnvil } from "../../../devnet/anvil.ts";
import { freeListenPort } from "../../../lib/local/net.ts";

export type ChainCeiling = {
  /** Transactions a second the chain mined, from the first block with ours to the last. */
  txPerSecond: number;
  sent: number;
  mined: number;
  blocks: number;
  /** The most transactions one block held (anvil's block gas limit caps it). */
  maxPerBlock: number;
  blockTimeSeconds: number;
};

async function rpc(url: string, body: unknown): Promise<unknown> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return r.json();
}

/**
 * The devnet's own ceiling: a throwaway anvil started as the devnet starts it (devnet/anvil.ts,
 * a block every `blockTime` s mined by `evm_mine`), nothing indexing it, fed `count` signed
 * BNB transfers from 100 wallets as fast as it accepts them (batches of 100). Measures how
 * many a second it mines.
 */
export async function measureChainCeiling(p: {
  blockTime: number;
  count: number;
}): Promise<ChainCeiling> {
  const port = await freeListenPort();
  const anvil = await startAnvil({ port, blockTime: p.blockTime, chainId: 56 });
  try {
    const url = anvil.rpcUrl;
    const senders = Array.from({ length: 100 }, (_, i) =>
      privateKeyToAccount(keccak256(toHex(`load:ceiling:${i}`))),
    );
    await rpc(
      url,
      senders.map((s, i) => ({
        jsonrpc: "2.0",
        id: i,
        method: "anvil_setBalance",
        params: [s.address, toHex(10n ** 24n)],
      })),
    );
    // Signed before the clock starts: the figure is the chain's, not this process's signing.
    const raw: `0x${string}`[] = [];
    for (let n = 0; n < Math.ceil(p.count / senders.length); n++)
      for (const s of senders)
        raw.push(
          await s.signTransaction({
            chainId: 56,
            nonce: n,
            to: senders[0]?.address,
            value: 1n,
            gas: 21_000n,
            gasPrice: parseGwei("5"),
            type: "legacy",
          }),
        );
    const startBlock = Number(
      ((await rpc(url, { jsonrpc: "2.0", id: 1, method: "eth_blockNumber" })) as { result: string })
        .result,
    );
    for (let i = 0; i < raw.length; i += 100) {
      await rpc(
        url,
        raw.slice(i, i + 100).map((tx, k) => ({
          jsonrpc: "2.0",
          id: k,
          method: "eth_sendRawTransaction",
          params: [tx],
        })),
      );
    }
    // Until every transfer is in a block (or a minute with none).
    const counts: { n: number; ts: number }[] = [];
    let block = startBlock + 1;
    let mined = 0;
    let idleSince = Date.now();
    while (mined < raw.length && Date.now() - idleSince < 60_000) {
      const b = (await rpc(url, {
        jsonrpc: "2.0",
        id: 1,
        method: "eth_getBlockByNumber",
        params: [toHex(block), false],
      })) as { result: { transactions: string[] } | null };
      if (!b.result) {
        await new Promise((r) => setTimeout(r, p.blockTime * 250));
        continue;
      }
      const n = b.result.transactions.length;
      if (n > 0) {
        counts.push({ n, ts: Date.now() });
        mined += n;
        idleSince = Date.now();
      }
      block++;
    }
    const withOurs = counts.length;
    // Blocks with transactions, each worth one block time: the chain's own clock, not ours.
    const seconds = Math.max(1, withOurs) * p.blockTime;
    return {
      txPerSecond: Math.round(mined / seconds),
      sent: raw.length,
      mined,
      blocks: withOurs,
      maxPerBlock: Math.max(0, ...counts.map((c) => c.n)),
      blockTimeSeconds: p.blockTime,
    };
  } finally {
    await anvil.stop();
  }
}
