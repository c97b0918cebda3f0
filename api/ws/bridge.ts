import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import type { Sql } from "../../lib/db/client.ts";
import { clientBucket, forwardedAddress } from "../../lib/http/client-ip.ts";
import type { Logger } from "../../lib/logger.ts";
import { WS_LIMITS } from "../limits.ts";
import { CLOSE, Connection } from "./connection.ts";
import { Hub } from "./hub.ts";

export const WS_PATH = "/ws";

export type AttachWebSocketParameters = {
  server: Server;
  sql: Sql;
  /** Schema of Ponder's published views. */
  viewsSchema: string;
  /** Reverse proxies in front of the API (as the HTTP client-ip middleware counts them). */
  trustProxy: number;
  logger: Logger;
  /** Ping interval; `WS_LIMITS.heartbeatMs` unless a test needs it shorter. */
  heartbeatMs?: number;
};
export type AttachWebSocketReturnType = { close: () => Promise<void>; connections: () => number };

/**
 * Serves the WebSocket bridge at `/ws` on the API's own HTTP server. `close()` ends every
 * socket with 1001 and stops the tailers; call it before closing the HTTP server.
 */
export async function attachWebSocket(
  p: AttachWebSocketParameters,
): Promise<AttachWebSocketReturnType> {
  const log = p.logger.child({ component: "ws" });
  const hub = new Hub(p.sql, p.viewsSchema, log);
  await hub.start();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: WS_LIMITS.maxMessageBytes,
    perMessageDeflate: false,
  });
  const connections = new Set<Connection>();
  /** Open sockets per client: an IPv4 address, or an IPv6 client's /64 (`clientBucket`). */
  const perIp = new Map<string, number>();

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== WS_PATH) return refuse(socket, 404, "Not Found");
    const ip = clientBucket(
      forwardedAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], p.trustProxy),
    );
    const n = perIp.get(ip) ?? 0;
    if (n >= WS_LIMITS.maxSocketsPerIp) return refuse(socket, 429, "Too Many Requests");
    perIp.set(ip, n + 1);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new Connection(ws, { sql: p.sql, schema: p.viewsSchema, hub, log });
      connections.add(conn);
      ws.on("close", () => {
        connections.delete(conn);
        const left = (perIp.get(ip) ?? 1) - 1;
        if (left > 0) perIp.set(ip, left);
        else perIp.delete(ip);
      });
      ws.on("error", () => ws.terminate());
    });
  };
  p.server.on("upgrade", onUpgrade);

  // A peer that did not answer the previous ping is gone (half-open TCP): drop it.
  const heartbeat = setInterval(() => {
    for (const c of connections) {
      if (!c.alive) {
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      c.ws.ping();
    }
  }, p.heartbeatMs ?? WS_LIMITS.heartbeatMs);

  return {
    connections: () => connections.size,
    close: async () => {
      clearInterval(heartbeat);
      p.server.off("upgrade", onUpgrade);
      await hub.stop();
      const closed = [...connections].map(
        (c) =>
          new Promise<void>((r) =>
            c.ws.readyState === c.ws.CLOSED ? r() : c.ws.once("close", () => r()),
          ),
      );
      for (const c of connections) c.close(CLOSE.goingAway, "server shutting down");
      await Promise.all(closed);
      wss.close();
    },
  };
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
