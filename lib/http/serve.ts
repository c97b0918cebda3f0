import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";

export type ServeParameters = {
  fetch: (request: Request) => Response | Promise<Response>;
  host: string;
  /** 0: a free port (the answer says which). */
  port: number;
  keepAliveTimeoutMs?: number;
  requestTimeoutMs?: number;
  /**
   * How long `close()` lets requests in flight finish before it cuts their connections; 0 (the
   * default) cuts them at once, as a crash would.
   */
  shutdownGraceMs?: number;
};

export type ServeReturnType = {
  server: Server;
  /** The port it listens on. */
  port: number;
  /** Stops accepting connections, closes idle ones, and the rest after the grace period. */
  close: () => Promise<void>;
};

/**
 * Serves a fetch handler (a Hono app) over HTTP and resolves once it listens; a port in use
 * rejects. The one way our servers (the API, the web app, the stand-ins) listen and close.
 *
 * @example
 * const { close } = await serveHttp({ fetch: app.fetch, host: "127.0.0.1", port: 3001, shutdownGraceMs: 5_000 });
 */
export function serveHttp(p: ServeParameters): Promise<ServeReturnType> {
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: p.fetch,
        hostname: p.host,
        port: p.port,
        serverOptions: {
          ...(p.keepAliveTimeoutMs !== undefined && { keepAliveTimeout: p.keepAliveTimeoutMs }),
          ...(p.requestTimeoutMs !== undefined && { requestTimeout: p.requestTimeoutMs }),
        },
      },
      (info: AddressInfo) => {
        server.off("error", reject);
        const s = server as Server;
        resolve({
          server: s,
          port: info.port,
          close: () => closeServer(s, p.shutdownGraceMs ?? 0),
        });
      },
    );
    server.once("error", reject);
  });
}

function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
    if (graceMs === 0) server.closeAllConnections();
  });
}
