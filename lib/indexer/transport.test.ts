import { createServer } from "node:http";
import { createPublicClient, HttpRequestError, TimeoutError } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../local/net.ts";
import { indexerTransport } from "./transport.ts";

// A node that accepts the connection and never answers (anvil under SIGSTOP looks like this).
const server = createServer(() => {});
const port = await freePort();
await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
afterAll(
  () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
);

describe("indexerTransport", () => {
  it("fails a timed-out request as a retryable HTTP error, not as viem's TimeoutError", async () => {
    const url = `http://127.0.0.1:${port}`;
    const client = createPublicClient({ transport: indexerTransport([url], { timeoutMs: 200 }) });
    const error = await client.getBlockNumber().catch((e: unknown) => e);
    // Ponder 0.17 throttles a provider on TimeoutError (as on HTTP 429); on this it retries.
    expect(error).not.toBeInstanceOf(TimeoutError);
    const cause = (error as { cause?: unknown }).cause ?? error;
    const found = [error, cause].find((e) => e instanceof HttpRequestError) as HttpRequestError;
    expect(found).toBeInstanceOf(HttpRequestError);
    expect(found.status).toBeUndefined();
    expect(found.cause).toBeInstanceOf(TimeoutError);
  });

  it("reaches a second URL when the first does not answer", async () => {
    const node = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        const { id } = JSON.parse(body) as { id: number };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id, result: "0x2a" }));
      });
    });
    const nodePort = await freePort();
    await new Promise<void>((r) => node.listen(nodePort, "127.0.0.1", () => r()));
    const client = createPublicClient({
      transport: indexerTransport([`http://127.0.0.1:${port}`, `http://127.0.0.1:${nodePort}`], {
        timeoutMs: 200,
      }),
    });
    expect(await client.getBlockNumber()).toBe(42n);
    await new Promise<void>((r) => node.close(() => r()));
  });

  it("keeps at most `concurrency` requests at the node and times each from when it is sent", async () => {
    // A node that answers each request 100 ms after it arrives and counts those it holds.
    let held = 0;
    let mostHeld = 0;
    const node = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        held++;
        mostHeld = Math.max(mostHeld, held);
        const { id } = JSON.parse(body) as { id: number };
        setTimeout(() => {
          held--;
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", id, result: "0x2a" }));
        }, 100);
      });
    });
    const nodePort = await freePort();
    await new Promise<void>((r) => node.listen(nodePort, "127.0.0.1", () => r()));
    // 12 requests, 2 at a time: the last are sent ~500 ms after they were asked for, past the
    // 400 ms timeout, and still answered.
    const client = createPublicClient({
      transport: indexerTransport([`http://127.0.0.1:${nodePort}`], {
        timeoutMs: 400,
        concurrency: 2,
      }),
    });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => client.request({ method: "eth_blockNumber" })),
    );
    expect(answers).toEqual(Array(12).fill("0x2a"));
    expect(mostHeld).toBe(2);
    await new Promise<void>((r) => node.close(() => r()));
  });
});
