import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../../lib/local/net.ts";
import { callerOf, judgeGetLogs, type ProviderProfile } from "./rpc-provider.ts";

/** What a provider-profile proxy saw: calls answered by caller and method, and its refusals. */
export type ProviderStats = {
  /** Calls answered (a refused eth_getLogs included), by caller, then method. */
  calls: Record<"ponder" | "handlers", Record<string, number>>;
  /** eth_getLogs refused for its range or its result count. */
  logsRefused: number;
  /** Requests answered 429 (each call of a refused batch counts). */
  rateLimited: number;
};

export type RpcProxy = {
  port: number;
  /** How many `method` calls reached the proxy so far. */
  calls: (method: string) => number;
  /** Every method's count so far (`ws:connect`: WebSocket connections passed through). */
  counts: () => Record<string, number>;
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
  /** With a provider profile: what it answered and refused so far. */
  stats: () => ProviderStats;
  stop: () => Promise<void>;
};

/**
 * A JSON-RPC proxy in front of a real node (anvil) that can answer chosen methods wrongly:
 * how a node that is behind or on another fork looks to the indexer. With a `profile` it also
 * behaves like a hosted provider (test/helpers/rpc-provider.ts): a round-trip latency, a request
 * rate over which it answers 429, and eth_getLogs refused over its block range or result cap in
 * the provider's own error form. With RPC_PROXY_LOG=FILE every call (method and params) is
 * appended to FILE, one JSON line each: who asked for what, when a count is not enough.
 *
 * @example
 * const proxy = await startRpcProxy(anvil.rpcUrl);
 * proxy.override("eth_getLogs", null, 3, ([f]) => (f as { topics?: unknown }).topics !== undefined);
 */
export async function startRpcProxy(
  upstream: string,
  o: { profile?: ProviderProfile } = {},
): Promise<RpcProxy> {
  const { profile } = o;
  const counts = new Map<string, number>();
  const stats: ProviderStats = {
    calls: { ponder: {}, handlers: {} },
    logsRefused: 0,
    rateLimited: 0,
  };
  let admitted: number[] = [];
  const overrides = new Map<
    string,
    { result: unknown; left: number; match?: (params: unknown[]) => boolean }
  >();
  const answer = async (req: { id: unknown; method: string; params?: unknown[] }, raw: unknown) => {
    counts.set(req.method, (counts.get(req.method) ?? 0) + 1);
    const byCaller = stats.calls[callerOf(req.method, req.params ?? [])];
    byCaller[req.method] = (byCaller[req.method] ?? 0) + 1;
    if (process.env.RPC_PROXY_LOG)
      appendFileSync(process.env.RPC_PROXY_LOG, `${JSON.stringify([req.method, req.params])}\n`);
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
    const got = (await res.json()) as { result?: unknown };
    if (profile && req.method === "eth_getLogs" && Array.isArray(got.result)) {
      const refusal = judgeGetLogs(profile, req.params ?? [], got.result, Number.MAX_SAFE_INTEGER);
      if (refusal) {
        stats.logsRefused++;
        return { jsonrpc: "2.0", id: req.id, error: refusal };
      }
    }
    return got;
  };
  /** The profile's rate: true when this many more requests fit in the last second. */
  const admit = (n: number) => {
    if (!profile) return true;
    const now = Date.now();
    admitted = admitted.filter((t) => t > now - 1000);
    if (admitted.length + n > profile.requestsPerSecond) return false;
    for (let i = 0; i < n; i++) admitted.push(now);
    return true;
  };
  const server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    try {
      const body = JSON.parse(text);
      if (profile) await sleep(profile.latencyMs);
      const items = Array.isArray(body) ? body : [body];
      if (!admit(items.length)) {
        stats.rateLimited += items.length;
        const refuse = (b: { id?: unknown }) => ({
          jsonrpc: "2.0",
          id: b.id ?? null,
          error: profile?.rateLimitError,
        });
        const out = Array.isArray(body) ? body.map(refuse) : refuse(body);
        res.writeHead(429, { "content-type": "application/json" }).end(JSON.stringify(out));
        return;
      }
      const out = Array.isArray(body)
        ? await Promise.all(body.map((b) => answer(b, b)))
        : await answer(body, body);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out));
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
  // A WebSocket (eth_subscribe: the indexer's new heads) passes through to the node unread,
  // counted once per connection: a client that derives its ws:// URL from this proxy's works.
  server.on("upgrade", (req, socket, head) => {
    counts.set("ws:connect", (counts.get("ws:connect") ?? 0) + 1);
    const target = new URL(upstream);
    const up = connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(`${lines.join("\r\n")}\r\n\r\n`);
      up.write(head);
      up.pipe(socket).pipe(up);
    });
    up.on("error", () => socket.destroy());
    socket.on("error", () => up.destroy());
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return {
    port,
    calls: (method) => counts.get(method) ?? 0,
    counts: () => Object.fromEntries(counts),
    override: (method, result, times, match) =>
      overrides.set(method, { result, left: times, match }),
    clear: () => overrides.clear(),
    stats: () => structuredClone(stats),
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
