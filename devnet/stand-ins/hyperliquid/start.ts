import { serveHttp } from "../../../lib/http/serve.ts";
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
export async function startHyperliquidStandIn(p: StartHyperliquidStandInParameters) {
  const standIn = createHyperliquidStandIn(p);
  const { port, close } = await serveHttp({
    fetch: standIn.app.fetch,
    host: "127.0.0.1",
    port: p.port ?? 0,
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    venue: standIn.venue,
    stop: async () => {
      await standIn.stop();
      await close();
    },
  };
}
