import { HttpRequestError } from "viem";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.ts";

// A log line never carries a configured RPC key or database password, wherever it is in the
// entry: viem's errors print `URL: <the RPC URL>` in their message and stack.

const KEY = "8f3a9c1d2b7e4f60a5c3d1e9b7f2a4c6";
const RPC = `https://bsc-mainnet.nodereal.io/v1/${KEY}`;
const QUERY_RPC = `https://rpc.example:8443/?apikey=${KEY}`;
const DB = "postgres://launchpad_rw:s3cret-db-pass@db.internal:5432/launchpad";

describe("createLogger", () => {
  it("hides the configured RPC and database URLs' credentials in messages, errors and stacks", () => {
    const lines: string[] = [];
    const log = createLogger("worker", "info", {
      destination: { write: (line: string) => void lines.push(line) },
      secretUrls: [RPC, QUERY_RPC, DB],
    });
    const err = new HttpRequestError({ url: RPC, status: 401, body: { method: "eth_chainId" } });
    log.warn({ err, url: QUERY_RPC }, "the chain did not answer");
    log.info(`connected to ${DB}`);
    const text = lines.join("");
    expect(text).toContain("HTTP request failed");
    expect(text).not.toContain(KEY);
    expect(text).not.toContain("s3cret-db-pass");
    expect(text).toContain("URL: https://bsc-mainnet.nodereal.io/***");
    expect(text).toContain('"url":"https://rpc.example:8443/***"');
    expect(text).toContain("connected to postgres://***@db.internal:5432/***");
    // Every line is still one JSON object.
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});
