import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, createWalletClient, http } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../lib/local/net.ts";
import { DEVNET_MNEMONIC, type StartAnvilReturnType, startAnvil } from "./anvil.ts";
import { DEVNET_LIMITS } from "./limits.ts";
import { dumpState } from "./state-file.ts";

// The short version of `npm run soak`: thousands of empty blocks through anvil_mine must not
// grow the state file, while what the chain holds (a transaction, its log) survives a restart.

/**
 * Bytes per empty block the state file may grow by, leaving out EIP-2935's ring buffer (the
 * history contract stores each block's hash, ~135 B, up to 8191 of them, then overwrites: about
 * 1.1 MB at most). Measured 0 B/block; an untrimmed anvil dump grows ~1,600 B/block of headers,
 * a dump with historical states grows with blocks times the state.
 */
const MAX_BYTES_PER_EMPTY_BLOCK = 1;
const HISTORY_CONTRACT = "0x0000f90827f1c53a10cb7a02335b175320002935";
const MEASURED_BLOCKS = 2_000;

const dir = mkdtempSync(join(tmpdir(), "devnet-state-"));
const statePath = join(dir, "state.json");
let anvil: StartAnvilReturnType | undefined;
afterAll(async () => {
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const rpc = async (url: string, method: string, params: unknown[] = []) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
};

/** Bytes of the history contract's entry in the state file (its ring buffer of block hashes). */
function ringBufferBytes(): number {
  const state = JSON.parse(readFileSync(statePath, "utf8")) as {
    accounts: Record<string, unknown>;
  };
  const entry = Object.entries(state.accounts).find(([a]) => a.toLowerCase() === HISTORY_CONTRACT);
  return entry ? JSON.stringify(entry[1]).length : 0;
}

describe("the devnet state file", () => {
  it("grows with what the chain holds, not with the block count, and restarts whole", async () => {
    const port = await freePort();
    // A long interval: this test writes the dumps itself, at the moments it measures.
    anvil = await startAnvil({ port, blockTime: 0, statePath, stateDumpIntervalMs: 3_600_000 });
    const url = anvil.rpcUrl;
    const client = createPublicClient({ transport: http(url) });
    const wallet = createWalletClient({
      account: mnemonicToAccount(DEVNET_MNEMONIC),
      transport: http(url),
    });
    // A contract creation that emits one log (PUSH1 0 PUSH1 0 LOG0).
    const hash = await wallet.sendTransaction({ chain: null, data: "0x60006000a0" });
    const receipt = await client.waitForTransactionReceipt({ hash });
    const identity = (await client.getBlock({ blockNumber: 1n })).hash;

    // Past the window of recent blocks kept whole, then measured over many more.
    await rpc(url, "anvil_mine", [`0x${(DEVNET_LIMITS.recentBlocks + 100).toString(16)}`]);
    const before = await dumpState(url, statePath);
    const ringBefore = ringBufferBytes();
    await rpc(url, "anvil_mine", [`0x${MEASURED_BLOCKS.toString(16)}`]);
    const after = await dumpState(url, statePath);
    const ring = ringBufferBytes() - ringBefore;
    expect(statSync(statePath).size).toBe(after);
    const perBlock = (after - before - ring) / MEASURED_BLOCKS;
    process.stdout.write(
      `state file: ${before} B, ${after} B after ${MEASURED_BLOCKS} more empty blocks, of which ${ring} B in the EIP-2935 ring buffer: ${perBlock.toFixed(2)} B/block besides (limit ${MAX_BYTES_PER_EMPTY_BLOCK})\n`,
    );
    expect(perBlock).toBeLessThanOrEqual(MAX_BYTES_PER_EMPTY_BLOCK);

    // A clean stop and a start from the file: same chain, same head, the log still there.
    const head = await client.getBlock();
    await anvil.stop();
    anvil = await startAnvil({ port, blockTime: 0, statePath });
    expect(anvil.fresh).toBe(false);
    expect((await client.getBlock({ blockNumber: 1n })).hash).toBe(identity);
    expect((await client.getBlock()).hash).toBe(head.hash);
    const logs = await client.getLogs({ fromBlock: 0n, toBlock: "latest" });
    expect(logs.map((l) => l.transactionHash)).toEqual([receipt.transactionHash]);
    // Recent blocks are kept whole; old empty ones are not in the file.
    const recent = head.number - BigInt(DEVNET_LIMITS.recentBlocks) + 1n;
    expect((await client.getBlock({ blockNumber: recent })).hash).toBeDefined();
    expect(await rpc(url, "eth_getBlockByNumber", ["0x100", false])).toBeNull();
    // The chain goes on from there.
    await rpc(url, "evm_mine");
    expect((await client.getBlock()).parentHash).toBe(head.hash);
  }, 120_000);
});
