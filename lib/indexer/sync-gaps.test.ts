import { describe, expect, it } from "vitest";
import { blockAskedInLog } from "./sync-gaps.ts";

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
