import { createServer } from "node:http";
import { getLogsRetryHelper } from "@ponder/utils";
import { numberToHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../lib/local/net.ts";
import { judgeGetLogs, PROVIDER_PROFILES } from "../helpers/rpc-provider.ts";
import { type RpcProxy, startRpcProxy } from "../helpers/rpc-proxy.ts";

// The provider profiles of `bench:indexer --provider`: their refusals are read by Ponder's own
// retry helper (what its historical sync calls on an eth_getLogs error) as the range to retry.

const logsIn = (from: number, to: number, perBlock: number) =>
  Array.from({ length: (to - from + 1) * perBlock }, (_, i) => ({
    blockNumber: numberToHex(from + Math.floor(i / perBlock)),
  }));
const params = (from: number, to: number) => [
  {
    address: "0x0000000000000000000000000000000000000001",
    fromBlock: numberToHex(from),
    toBlock: numberToHex(to),
  },
];

describe("provider profiles", () => {
  for (const profile of Object.values(PROVIDER_PROFILES)) {
    it(`${profile.name}: a range over 2,000 blocks is refused, and Ponder retries in ranges that fit`, () => {
      const refusal = judgeGetLogs(profile, params(100, 5_099), logsIn(100, 5_099, 1), 10_000);
      expect(refusal).toBeDefined();
      const retry = getLogsRetryHelper({
        params: params(100, 5_099) as never,
        error: { code: refusal?.code, message: refusal?.message } as never,
      });
      expect(retry.shouldRetry).toBe(true);
      const ranges = (retry as { ranges: { fromBlock: string; toBlock: string }[] }).ranges;
      for (const r of ranges) {
        expect(Number(r.toBlock) - Number(r.fromBlock) + 1).toBeLessThanOrEqual(2_000);
      }
      expect(Number(ranges[0]?.fromBlock)).toBe(100);
      expect(Number(ranges.at(-1)?.toBlock)).toBe(5_099);
    });

    it(`${profile.name}: over 10,000 logs is refused with a range under the cap`, () => {
      // 1,500 logs a block: at most 6 blocks an answer.
      const refusal = judgeGetLogs(profile, params(0, 99), logsIn(0, 99, 1_500), 10_000);
      const retry = getLogsRetryHelper({
        params: params(0, 99) as never,
        error: { code: refusal?.code, message: refusal?.message } as never,
      });
      const ranges = (retry as { ranges: { fromBlock: string; toBlock: string }[] }).ranges;
      expect(retry.shouldRetry).toBe(true);
      for (const r of ranges) {
        expect((Number(r.toBlock) - Number(r.fromBlock) + 1) * 1_500).toBeLessThanOrEqual(10_000);
      }
      expect(judgeGetLogs(profile, params(0, 5), logsIn(0, 5, 1_500), 10_000)).toBeUndefined();
    });
  }
});

describe("the proxy with a profile", () => {
  let node: ReturnType<typeof createServer>;
  let proxy: RpcProxy;
  beforeAll(async () => {
    // The node behind: answers every call (a block number, or one log a block).
    node = createServer(async (req, res) => {
      let text = "";
      for await (const c of req) text += c;
      const one = (b: {
        id: number;
        method: string;
        params: { fromBlock: string; toBlock: string }[];
      }) => ({
        jsonrpc: "2.0",
        id: b.id,
        result:
          b.method === "eth_getLogs"
            ? logsIn(Number(b.params[0]?.fromBlock), Number(b.params[0]?.toBlock), 1)
            : "0x10",
      });
      const body = JSON.parse(text);
      res.end(JSON.stringify(Array.isArray(body) ? body.map(one) : one(body)));
    });
    const port = await freePort();
    await new Promise<void>((r) => node.listen(port, "127.0.0.1", () => r()));
    proxy = await startRpcProxy(`http://127.0.0.1:${port}`, { profile: PROVIDER_PROFILES.alchemy });
  });
  afterAll(async () => {
    await proxy.stop();
    await new Promise((r) => node.close(r));
  });
  const call = (method: string, p: unknown[] = []) =>
    fetch(`http://127.0.0.1:${proxy.port}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: p }),
    });

  it("answers 429 to more than 25 requests in a second, and counts calls by caller", async () => {
    // One batch of 30 calls: over the rate at once, whatever the machine's speed.
    const batch = Array.from({ length: 30 }, (_, id) => ({
      jsonrpc: "2.0",
      id,
      method: "eth_blockNumber",
      params: [],
    }));
    const limited = await fetch(`http://127.0.0.1:${proxy.port}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(batch),
    });
    expect(limited.status).toBe(429);
    const answers = (await limited.json()) as { id: number; error: { code: number } }[];
    expect(answers).toHaveLength(30);
    expect(answers[0]).toMatchObject({ id: 0, error: { code: 429 } });
    expect((await call("eth_blockNumber")).status).toBe(200);
    const refused = (await (await call("eth_getLogs", params(0, 2_000))).json()) as {
      error: { message: string };
    };
    expect(refused.error.message).toContain("this block range should work: [0x0, 0x7cf]");
    await call("eth_getLogs", [{ blockHash: `0x${"1".repeat(64)}`, topics: [] }]);
    const s = proxy.stats();
    expect(s.rateLimited).toBe(30);
    expect(s.logsRefused).toBe(1);
    expect(s.calls.handlers.eth_getLogs).toBe(1);
    expect(s.calls.ponder.eth_getLogs).toBe(1);
    expect(s.calls.ponder.eth_blockNumber).toBe(1);
  });
});
