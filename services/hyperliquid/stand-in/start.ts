import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createHyperliquidStandIn, type HyperliquidStandInParameters } from "./server.ts";

export type StartHyperliquidStandInParameters = HyperliquidStandInParameters & {
  /** 0 (default): a free port. */
  port?: number;
};

/**
 * Starts the perps venue stand-in on 127.0.0.1 and resolves once it listens. `stop` closes
 * every connection (a request told to hang included) and writes the state.
 *
 * @example
 * const hl = await startHyperliquidStandIn({ log, walkEveryMs: 0 });
 * await fetch(`${hl.url}/_control/marks`, { method: "PUT", body: JSON.stringify({ BTC: 70000 }) });
 * await hl.stop();
 */
export function startHyperliquidStandIn(p: StartHyperliquidStandInParameters) {
  const standIn = createHyperliquidStandIn(p);
  return new Promise<{
    url: string;
    port: number;
    venue: typeof standIn.venue;
    stop: () => Promise<void>;
  }>((resolve, reject) => {
    const server = serve(
      { fetch: standIn.app.fetch, hostname: "127.0.0.1", port: p.port ?? 0 },
      (info: AddressInfo) => {
        server.off("error", reject);
        resolve({
          url: `http://127.0.0.1:${info.port}`,
          port: info.port,
          venue: standIn.venue,
          stop: async () => {
            await standIn.stop();
            await new Promise<void>((r) => {
              server.close(() => r());
              (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            });
          },
        });
      },
    );
    server.once("error", reject);
  });
}
