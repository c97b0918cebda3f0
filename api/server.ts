import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import type { Logger } from "../lib/logger.ts";
import type { App } from "./app.ts";
import { answerClientError } from "./client-error.ts";
import { API_LIMITS } from "./limits.ts";

export type StartServerParameters = { app: App; host: string; port: number; logger: Logger };
export type StartServerReturnType = { server: Server; close: () => Promise<void> };

/**
 * Serves the app over HTTP and resolves once it listens. `close()` stops accepting new
 * connections, lets in-flight requests finish within the grace period, then cuts the rest.
 */
export function startServer(p: StartServerParameters): Promise<StartServerReturnType> {
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: p.app.fetch,
        hostname: p.host,
        port: p.port,
        serverOptions: {
          keepAliveTimeout: API_LIMITS.keepAliveTimeoutMs,
          requestTimeout: API_LIMITS.requestTimeoutMs,
        },
      },
      () => {
        server.off("error", reject);
        resolve({ server: server as Server, close: () => closeServer(server as Server) });
      },
    );
    server.once("error", reject);
    // Node's own refusals (headers over 16 KB, malformed requests) in the error envelope.
    server.on("clientError", answerClientError);
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), API_LIMITS.shutdownGraceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
