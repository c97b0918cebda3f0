import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { pino } from "pino";
import { startHyperliquidStandIn } from "../../devnet/stand-ins/hyperliquid/start.ts";
import { createXStandIn } from "../../devnet/stand-ins/x/server.ts";
import type { XApiTier } from "../../services/x/protocol.ts";

/**
 * The perps venue and X stand-ins at the real services' documented limits (the venue's 1200
 * weight a minute, X's windows of `xTier`), for the pollers' benchmark: real HTTP servers on
 * free ports, with their control routes.
 *
 * @example
 * const s = await startPollerStandIns({ xTier: "basic", xToken: "bench-token" });
 */
export async function startPollerStandIns(o: { xTier: XApiTier; xToken: string }) {
  const log = pino({ level: "silent" });
  const hl = await startHyperliquidStandIn({
    log,
    walkEveryMs: 0,
    weightPerMinute: 1200,
    weightWindowMs: 60_000,
  });
  const x = createXStandIn({
    clientId: "bench-client",
    clientSecret: "bench-secret",
    appToken: o.xToken,
    log,
    rateLimits: { tier: o.xTier },
  });
  const xServer = await new Promise<{ url: string; close: () => void }>((resolve) => {
    const s = serve({ fetch: x.fetch, hostname: "127.0.0.1", port: 0 }, (i: AddressInfo) =>
      resolve({ url: `http://127.0.0.1:${i.port}`, close: () => s.close() }),
    );
  });
  const call = async (base: string, method: string, path: string, body?: unknown) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as Record<string, unknown>;
  };
  return {
    hlUrl: hl.url,
    xUrl: xServer.url,
    venue: (method: string, path: string, body?: unknown) =>
      call(hl.url, method, `/_control${path}`, body),
    x: (method: string, path: string, body?: unknown) => call(xServer.url, method, path, body),
    stop: async () => {
      xServer.close();
      await hl.stop();
    },
  };
}
