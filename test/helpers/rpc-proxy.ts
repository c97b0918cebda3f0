import { createServer } from "node:http";
import { freePort } from "../../lib/net.ts";

export type RpcProxy = {
  port: number;
  /** How many `method` calls reached the proxy so far. */
  calls: (method: string) => number;
  /**
   * Answer `result` instead of the node's for the next `times` calls of `method` (Infinity: until
   * cleared), only those whose params `match` if given.
   */
  override: (
    method: string,
    result: unknown,
    times: number,
    match?: (params: unknown[]) => boolean,
  ) => void;
  clear: () => void;
  stop: () => Promise<void>;
};

/**
 * A JSON-RPC proxy in front of a real node (anvil) that can answer chosen methods wrongly:
 * how a node that is behind or on another fork looks to the indexer.
 *
 * @example
 * const proxy = await startRpcProxy(anvil.rpcUrl);
 * proxy.override("eth_getLogs", null, 3, ([f]) => (f as { topics?: unknown }).topics !== undefined);
 */
export async function startRpcProxy(upstream: string): Promise<RpcProxy> {
  const counts = new Map<string, number>();
  const overrides = new Map<
    string,
    { result: unknown; left: number; match?: (params: unknown[]) => boolean }
  >();
  const answer = async (req: { id: unknown; method: string; params?: unknown[] }, raw: unknown) => {
    counts.set(req.method, (counts.get(req.method) ?? 0) + 1);
    const o = overrides.get(req.method);
    if (o && (!o.match || o.match(req.params ?? [])) && o.left > 0) {
      o.left--;
      return { jsonrpc: "2.0", id: req.id, result: o.result };
    }
    const res = await fetch(upstream, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(raw),
      signal: AbortSignal.timeout(10_000),
    });
    return res.json();
  };
  const server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    try {
      const body = JSON.parse(text);
      const out = Array.isArray(body)
        ? await Promise.all(body.map((b) => answer(b, b)))
        : await answer(body, body);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out));
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return {
    port,
    calls: (method) => counts.get(method) ?? 0,
    override: (method, result, times, match) =>
      overrides.set(method, { result, left: times, match }),
    clear: () => overrides.clear(),
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
