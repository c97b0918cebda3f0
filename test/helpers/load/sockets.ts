import type { Address } from "viem";
import WebSocket from "ws";
import { zipf } from "./stats.ts";

/**
 * `count` WebSocket subscribers, as open token pages are: each on one `token.<address>` channel,
 * drawn by the trades' Zipf popularity (one in twenty on the `trades` ticker). A `trade`
 * message's delay is measured from when its block was first seen at the head (`seenAt`).
 */
export async function startSubscribers(p: {
  /** Socket i opens on `wsUrls[i % n]`: the API processes share the subscribers. */
  wsUrls: string[];
  tokens: Address[];
  count: number;
  random: () => number;
  blockOf: (txHash: string) => bigint | undefined;
  seenAt: (block: number) => number | undefined;
  onDelay?: (ms: number) => void;
}) {
  const rank = zipf(p.random);
  const sockets: WebSocket[] = [];
  let delays: number[] = [];
  let messages = 0;
  let failed = 0;
  const open = (i: number) =>
    new Promise<void>((resolve) => {
      // One browser each: its own address (the stack trusts X-Forwarded-For, TRUST_PROXY=1),
      // or the bridge's 50 sockets per IP would refuse the rest.
      const ws = new WebSocket(p.wsUrls[i % p.wsUrls.length] as string, {
        headers: { "x-forwarded-for": `10.77.${(i >> 8) & 255}.${i & 255}` },
      });
      const channel =
        i % 20 === 19
          ? { type: "subscribe", channel: "trades" }
          : { type: "subscribe", channel: "token", id: p.tokens[rank(p.tokens.length)] };
      ws.on("open", () => {
        ws.send(JSON.stringify(channel));
        resolve();
      });
      ws.on("error", () => {
        failed++;
        resolve();
      });
      ws.on("message", (raw) => {
        const now = Date.now();
        messages++;
        const m = JSON.parse(String(raw)) as { type: string; data?: { txHash?: string } };
        if (m.type !== "trade" || !m.data?.txHash) return;
        const block = p.blockOf(m.data.txHash);
        const at = block === undefined ? undefined : p.seenAt(Number(block));
        if (at === undefined) return;
        delays.push(now - at);
        p.onDelay?.(now - at);
      });
      sockets.push(ws);
    });
  // In batches: a thousand handshakes at once would measure the accept queue, not the bridge.
  for (let i = 0; i < p.count; i += 50)
    await Promise.all(Array.from({ length: Math.min(50, p.count - i) }, (_, k) => open(i + k)));
  return {
    take: () => {
      const out = delays;
      delays = [];
      return out;
    },
    stats: () => ({
      open: sockets.filter((s) => s.readyState === WebSocket.OPEN).length,
      failed,
      messages,
    }),
    close: () => {
      for (const s of sockets) s.terminate();
    },
  };
}
