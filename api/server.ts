import type { Server } from "node:http";
import { serveHttp } from "../lib/http/serve.ts";
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
export async function startServer(p: StartServerParameters): Promise<StartServerReturnType> {
  const { server, close } = await serveHttp({
    fetch: p.app.fetch,
    host: p.host,
    port: p.port,
    keepAliveTimeoutMs: API_LIMITS.keepAliveTimeoutMs,
    requestTimeoutMs: API_LIMITS.requestTimeoutMs,
    shutdownGraceMs: API_LIMITS.shutdownGraceMs,
  });
  // Node's own refusals (headers over 16 KB, malformed requests) in the error envelope.
  server.on("clientError", answerClientError);
  return { server, close };
}
