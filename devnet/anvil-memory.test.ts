import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, createWalletClient, http } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../lib/local/net.ts";
import { residentBytes } from "../lib/local/process-memory.ts";
import { DEVNET_MNEMONIC, type StartAnvilReturnType, startAnvil } from "./anvil.ts";
import { DEVNET_LIMITS } from "./limits.ts";

// Anvil keeps a full copy of the chain's state for each block it remembers. With 1-second
// blocks through `--block-time` it remembered 1,500 blocks whatever `--prune-history` said, and
// its memory grew by a state copy per block: +1.2 GB/h in the 70-minute soak. The devnet now
// mines its blocks itself; this checks, with 1-second blocks, that anvil forgets states past
// `historyStates` and that its memory does not grow by a state copy per block.

/**
 * Memory anvil may gain per block mined. A block's own data is ~1.5 KB; each of the kept
 * states also gains one entry per block in anvil's system-contract ring buffers (EIP-2935 and
 * EIP-4788, full after 8,191 blocks), ~300 B each, so ~20 KB/block with 64 states until the
 * buffers are full (measured 17-25 KB/block), then ~1.5 KB/block. Remembering 1,500 states, as
 * `--block-time 1` did, measured 220-350 KB/block.
 */
const MAX_KB_PER_BLOCK = 80;
const WARMUP_BLOCKS = 200;
const MEASURED_BLOCKS = 2_000;
const PROBE = "0x000000000000000000000000000000000000dEaD";

const dir = mkdtempSync(join(tmpdir(), "devnet-memory-"));
let anvil: StartAnvilReturnType | undefined;
let restarted: StartAnvilReturnType | undefined;
let grown: StartAnvilReturnType | undefined;
afterAll(async () => {
  await anvil?.stop();
  await restarted?.stop();
  await grown?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const rpc = async (url: string, method: string, params: unknown[] = []) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { message: string } };
};

/** KiB resident; throws once the process is gone (the loops below wait out a restart on it). */
function rssKb(pid: number): number {
  const bytes = residentBytes(pid);
  if (bytes === undefined) throw new Error(`no process ${pid}`);
  return bytes / 1024;
}

async function mine(url: string, blocks: number) {
  for (let left = blocks; left > 0; left -= 500) {
    await rpc(url, "anvil_mine", [`0x${Math.min(500, left).toString(16)}`]);
  }
}

describe("anvil's memory with 1-second blocks", () => {
  it("keeps only `historyStates` past states and does not grow by a state copy per block", async () => {
    anvil = await startAnvil({
      port: await freePort(),
      blockTime: 1,
      statePath: join(dir, "state.json"),
      stateDumpIntervalMs: 3_600_000,
    });
    const url = anvil.rpcUrl;
    const pid = anvil.child.pid as number;
    await mine(url, WARMUP_BLOCKS);
    const before = rssKb(pid);
    await mine(url, MEASURED_BLOCKS);
    const after = rssKb(pid);
    const perBlock = (after - before) / MEASURED_BLOCKS;
    process.stdout.write(
      `anvil RSS ${Math.round(before / 1024)} MB -> ${Math.round(after / 1024)} MB over ${MEASURED_BLOCKS} blocks: ${perBlock.toFixed(1)} KB/block (limit ${MAX_KB_PER_BLOCK})\n`,
    );

    // What the limit is for: a read at a block older than `historyStates` finds no state.
    const head = Number((await rpc(url, "eth_blockNumber")).result);
    const at = (back: number) =>
      rpc(url, "eth_getBalance", [PROBE, `0x${(head - back).toString(16)}`]);
    expect((await at(DEVNET_LIMITS.historyStates / 2)).error).toBeUndefined();
    expect((await at(DEVNET_LIMITS.historyStates * 4)).error).toBeDefined();
    expect(perBlock).toBeLessThanOrEqual(MAX_KB_PER_BLOCK);
  }, 180_000);

  it("restarts anvil from the state file when it holds too much beyond it: same chain, logs kept", async () => {
    const lines: string[] = [];
    const shedLimit = 500_000;
    restarted = await startAnvil({
      port: await freePort(),
      blockTime: 1,
      statePath: join(dir, "restart.json"),
      stateDumpIntervalMs: 250,
      restartAboveShedBytes: shedLimit,
      onLine: (l) => lines.push(l),
    });
    const a = restarted;
    const url = a.rpcUrl;
    const client = createPublicClient({ transport: http(url) });
    const wallet = createWalletClient({
      account: mnemonicToAccount(DEVNET_MNEMONIC),
      transport: http(url),
    });
    // A contract creation that emits one log (PUSH1 0 PUSH1 0 LOG0); the miner mines it.
    const hash = await wallet.sendTransaction({ chain: null, data: "0x60006000a0" });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    const identity = (await client.getBlock({ blockNumber: 1n })).hash;
    const firstPid = a.child.pid as number;
    // Empty blocks anvil keeps and the state file does not, until it restarts (a call cut by
    // the restart fails; the block count it reached is in the state file anvil dumps on stop).
    let before = 0;
    let head = 0n;
    for (let i = 0; a.child.pid === firstPid; i++) {
      if (i > 1_200) throw new Error(`anvil did not restart:\n${lines.join("\n")}`);
      try {
        before = Math.max(before, rssKb(firstPid));
        await rpc(url, "anvil_mine", ["0x1f4"]);
        head = await client.getBlockNumber();
      } catch {
        await new Promise((r) => setTimeout(r, 100)); // anvil is restarting
      }
    }
    await client.getChainId();
    const after = rssKb(a.child.pid as number);
    process.stdout.write(
      `anvil restarted from the state file: RSS ${Math.round(before / 1024)} MB -> ${Math.round(after / 1024)} MB\n`,
    );
    expect(lines.join("\n")).toMatch(/restarted anvil from the state file/);
    expect((await client.getBlock({ blockNumber: 1n })).hash).toBe(identity);
    expect(await client.getBlockNumber()).toBeGreaterThanOrEqual(head);
    const logs = await client.getLogs({ fromBlock: 0n, toBlock: "latest" });
    expect(logs.map((l) => l.transactionHash)).toEqual([receipt.transactionHash]);
    expect(after).toBeLessThan(before);
  }, 180_000);

  it("restarts anvil from the state file when its memory has grown past the limit since it started", async () => {
    const lines: string[] = [];
    grown = await startAnvil({
      port: await freePort(),
      blockTime: 1,
      statePath: join(dir, "grown.json"),
      stateDumpIntervalMs: 250,
      // Only the memory trigger: empty blocks alone never reach this much to shed here.
      restartAboveShedBytes: Number.POSITIVE_INFINITY,
      restartAboveRssGrowthBytes: 8 * 1024 * 1024,
      onLine: (l) => lines.push(l),
    });
    const a = grown;
    const client = createPublicClient({ transport: http(a.rpcUrl) });
    await rpc(a.rpcUrl, "anvil_mine", ["0x2"]);
    const identity = (await client.getBlock({ blockNumber: 1n })).hash;
    // A chain ahead of the clock, as after a test passes a deadline: a restart must not mine a
    // block older than its parent (it forgot the offset once, and candles broke on it).
    await rpc(a.rpcUrl, "evm_increaseTime", [3600]);
    await rpc(a.rpcUrl, "anvil_mine", ["0x1"]);
    const firstPid = a.child.pid as number;
    let peak = 0;
    for (let i = 0; a.child.pid === firstPid; i++) {
      if (i > 1_200) throw new Error(`anvil did not restart:\n${lines.join("\n")}`);
      try {
        peak = Math.max(peak, rssKb(firstPid));
        await rpc(a.rpcUrl, "anvil_mine", ["0x64"]);
      } catch {
        await new Promise((r) => setTimeout(r, 100)); // anvil is restarting
      }
    }
    await client.getChainId();
    const after = rssKb(a.child.pid as number);
    process.stdout.write(
      `anvil restarted on memory growth: RSS ${Math.round(peak / 1024)} MB -> ${Math.round(after / 1024)} MB\n`,
    );
    expect(lines.join("\n")).toMatch(/restarted anvil from the state file .*memory grew by \d+ MB/);
    expect((await client.getBlock({ blockNumber: 1n })).hash).toBe(identity);
    const last = await client.getBlock();
    await rpc(a.rpcUrl, "evm_mine");
    const next = await client.getBlock({ blockNumber: last.number + 1n });
    expect(next.timestamp).toBeGreaterThan(last.timestamp);
    expect(after).toBeLessThan(peak);
  }, 180_000);
});
