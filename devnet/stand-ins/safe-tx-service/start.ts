import { serveHttp } from "../../../lib/http/serve.ts";
import { createSafeTxServiceStandIn, type SafeTxServiceStandInParameters } from "./server.ts";

export type StartSafeTxServiceStandInParameters = SafeTxServiceStandInParameters & {
  /** 0 (default): a free port. */
  port?: number;
};

/**
 * Starts the Safe Transaction Service stand-in on 127.0.0.1 and resolves once it listens.
 * `stop` closes every connection, a request told to hang included (as a crash would).
 *
 * @example
 * const safe = await startSafeTxServiceStandIn({ chainId: 56, log, statePath });
 * await safe.stop();
 */
export async function startSafeTxServiceStandIn(p: StartSafeTxServiceStandInParameters) {
  const app = createSafeTxServiceStandIn(p);
  const { port, close } = await serveHttp({
    fetch: app.fetch,
    host: "127.0.0.1",
    port: p.port ?? 0,
  });
  return { url: `http://127.0.0.1:${port}`, port, stop: close };
}
