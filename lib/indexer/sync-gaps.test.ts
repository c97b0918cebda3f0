import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartAnvilReturnType, startAnvil } from "../../devnet/anvil.ts";
import { freePort } from "../net.ts";
import { blockAskedInLog, blockIsGone } from "./sync-gaps.ts";

const HASH = "0x449067fdcd94bd4bd1d77516712ea7e94301c22dbaed5791e37f57a157332628";

/** A Ponder 0.17 log line, shaped as its realtime sync writes it (JSON log format). */
const ponderLine = (fields: Record<string, unknown>) =>
  JSON.stringify({ level: 40, time: 1795761733011, msg: "Received JSON-RPC error", ...fields });

describe("blockAskedInLog", () => {
  it("names a block by hash once Ponder failed to read its logs a third time", () => {
    const line = (retry: number) =>
      ponderLine({
        action: "fetch_block_data",
        chain: "bsc",
        method: "eth_getLogs",
        request: JSON.stringify({ method: "eth_getLogs", params: [{ blockHash: HASH }] }),
        retry_count: retry,
        error: { message: "Missing or invalid parameters.\n\nDetails: unknown block" },
      });
    // The first failures may be a node behind its peers; the third is not.
    expect(blockAskedInLog(line(1))).toBeUndefined();
    expect(blockAskedInLog(line(3))).toEqual({ chain: "bsc", block: HASH });
  });

  it("names a block by number that eth_getBlockByNumber did not find", () => {
    const line = ponderLine({
      chain: "arbitrum",
      method: "eth_getBlockByNumber",
      request: JSON.stringify({ method: "eth_getBlockByNumber", params: ["0x1e0", false] }),
      error: { name: "BlockNotFoundError", message: 'Block at number "0x1e0" could not be found.' },
    });
    expect(blockAskedInLog(line)).toEqual({ chain: "arbitrum", block: 480 });
  });

  it("ignores range reads, other calls and lines that are not JSON", () => {
    const range = ponderLine({
      chain: "bsc",
      method: "eth_getLogs",
      request: JSON.stringify({
        method: "eth_getLogs",
        params: [{ fromBlock: "0x1", toBlock: "0x2" }],
      }),
      retry_count: 5,
    });
    expect(blockAskedInLog(range)).toBeUndefined();
    expect(blockAskedInLog('{"msg":"Indexed block","chain":"bsc","number":12}')).toBeUndefined();
    expect(blockAskedInLog("Received JSON-RPC error (not json)")).toBeUndefined();
  });
});

describe("blockIsGone", () => {
  let anvil: StartAnvilReturnType;
  beforeAll(async () => {
    anvil = await startAnvil({ port: await freePort(), blockTime: 0 });
  });
  afterAll(async () => anvil?.stop());

  const rpc = async (method: string, params: unknown[] = []) => {
    const res = await fetch(anvil.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return ((await res.json()) as { result: unknown }).result;
  };
  const hashOf = async (n: number) =>
    ((await rpc("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as { hash: `0x${string}` })
      .hash;

  it("tells a block the chain dropped from one it still has, by hash and by number", async () => {
    await rpc("anvil_mine", ["0x3"]);
    const kept = await hashOf(3);
    const snapshot = await rpc("evm_snapshot");
    await rpc("anvil_mine", ["0x2"]);
    const dropped = await hashOf(5);
    await rpc("evm_revert", [snapshot]); // block 5 and its hash are gone, as after a reorg
    expect(await blockIsGone(anvil.rpcUrl, dropped)).toBe(true);
    expect(await blockIsGone(anvil.rpcUrl, kept)).toBe(false);
    expect(await blockIsGone(anvil.rpcUrl, 2)).toBe(false);
    // A block still to come is not gone.
    expect(await blockIsGone(anvil.rpcUrl, 9)).toBe(false);
  });

  it("does not call a block gone when the chain does not answer", async () => {
    expect(await blockIsGone("http://127.0.0.1:9", HASH)).toBe(false);
    expect(await blockIsGone("http://127.0.0.1:9", 2)).toBe(false);
  });
});
