import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
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
export function startSafeTxServiceStandIn(p: StartSafeTxServiceStandInParameters) {
  const app = createSafeTxServiceStandIn(p);
  return new Promise<{ url: string; port: number; stop: () => Promise<void> }>(
    (resolve, reject) => {
      const server = serve(
        { fetch: app.fetch, hostname: "127.0.0.1", port: p.port ?? 0 },
        (info: AddressInfo) => {
          server.off("error", reject);
          resolve({
            url: `http://127.0.0.1:${info.port}`,
            port: info.port,
            stop: () =>
              new Promise<void>((r) => {
                server.close(() => r());
                (server as { closeAllConnections?: () => void }).closeAllConnections?.();
              }),
          });
        },
      );
      server.once("error", reject);
    },
  );
}
