import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { DEVNET_DEFAULTS } from "../../devnet/deploy.ts";
import type { DeploymentRecord } from "../../devnet/record.ts";
import { createFourMemeApp } from "../../devnet/stand-ins/four-meme/server.ts";
import { createHyperliquidStandIn } from "../../devnet/stand-ins/hyperliquid/server.ts";
import { createSafeTxServiceStandIn } from "../../devnet/stand-ins/safe-tx-service/server.ts";
import { createStewardApp } from "../../devnet/stand-ins/steward/server.ts";
import { createXStandIn } from "../../devnet/stand-ins/x/server.ts";
import { MAINNET } from "../../lib/config.ts";
import { createLogger } from "../../lib/logger.ts";
import { serveWorld, type WorldServer } from "../helpers/world/serve.ts";
import type { WorldHost } from "../helpers/world/world.ts";

/** One request a stand-in answered: what the roles asked of the outside world, and its status. */
export type Exchange = { method: string; path: string; status: number };

export type OutsideWorld = {
  /** The production variables that point the roles at the stand-ins (and their credentials). */
  env: Record<string, string>;
  /** Every request each stand-in answered, by host. */
  wire: Map<WorldHost, Exchange[]>;
  close: () => Promise<void>;
};

export type StartOutsideWorldParameters = {
  dir: string;
  rpcUrl: string;
  /** Where Steward sends its webhooks: the API as the world reaches it. */
  apiUrl: string;
  /** Steward's webhook secret (the API's STEWARD_WEBHOOK_SECRET). */
  webhookSecret: string;
};

const X = {
  clientId: "rehearsal-x-client",
  clientSecret: "rehearsal-x-client-secret",
  postToken: "rehearsal-x-post-token",
  bearerToken: "rehearsal-x-bearer-token",
};

/**
 * The five outside services of docs/upstreams.md as production meets them: each stand-in at a
 * DNS name of the public world (IPv4 and IPv6), over TLS from the run's test CA, at a URL the
 * roles are configured with like any real provider's. Every answer is tapped into `wire`.
 */
export async function startOutsideWorld(p: StartOutsideWorldParameters): Promise<OutsideWorld> {
  const log = createLogger("outside", "warn");
  const wire = new Map<WorldHost, Exchange[]>();
  const servers: WorldServer[] = [];
  const stops: (() => Promise<void> | void)[] = [];
  /** Serves an app once it is made (it may need its own origin first). */
  async function host(name: WorldHost) {
    let listener: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
    const log: Exchange[] = [];
    wire.set(name, log);
    const server = await serveWorld(name, (req, res) => {
      res.on("finish", () =>
        log.push({ method: req.method ?? "", path: req.url ?? "", status: res.statusCode }),
      );
      if (listener) listener(req, res);
      else res.writeHead(503).end();
    });
    servers.push(server);
    return {
      origin: server.origin,
      serve: (app: { fetch: (r: Request) => Response | Promise<Response> }) => {
        listener = getRequestListener(app.fetch);
      },
    };
  }

  const steward = await host("steward.example.com");
  steward.serve(
    createStewardApp({
      rpcUrl: p.rpcUrl,
      chainId: 56,
      apiKey: "stw-rehearsal-key",
      tenantId: "rehearsal",
      webhookBaseUrl: p.apiUrl,
      webhookSecret: p.webhookSecret,
      storePath: join(p.dir, "steward.json"),
      masterKey: Buffer.alloc(32, 7),
      log,
    }),
  );
  const fourMeme = await host("four-meme.example.com");
  fourMeme.serve(
    createFourMemeApp({
      // What the stand-in reads of a record: the chain, four.meme's address, WBNB, the raise.
      record: {
        chainId: 56,
        contracts: { tokenManager2: MAINNET.tokenManager2, wbnb: MAINNET.wbnb },
        params: { maxRaising: DEVNET_DEFAULTS.maxRaising.toString() },
      } as unknown as DeploymentRecord,
      signer: devnetAccounts().launchpadSigner,
      origin: fourMeme.origin,
      dir: join(p.dir, "four-meme"),
      log,
    }),
  );
  const hyperliquid = await host("hyperliquid.example.com");
  const venue = createHyperliquidStandIn({ log });
  stops.push(venue.stop);
  hyperliquid.serve(venue.app);
  const safe = await host("safe-transaction.example.com");
  safe.serve(createSafeTxServiceStandIn({ chainId: 56, rpcUrl: p.rpcUrl, log }));
  const x = await host("x-api.example.com");
  x.serve(
    createXStandIn({
      clientId: X.clientId,
      clientSecret: X.clientSecret,
      serviceToken: X.postToken,
      appToken: X.bearerToken,
      log,
    }),
  );

  return {
    env: {
      STEWARD_URL: steward.origin,
      STEWARD_API_KEY: "stw-rehearsal-key",
      STEWARD_TENANT_ID: "rehearsal",
      FOUR_MEME_API_URL: `${fourMeme.origin}/meme-api`,
      HYPERLIQUID_API_URL: hyperliquid.origin,
      SAFE_TX_SERVICE_URL: safe.origin,
      X_OAUTH_URL: x.origin,
      X_API_URL: x.origin,
      X_CLIENT_ID: X.clientId,
      X_CLIENT_SECRET: X.clientSecret,
      X_POST_TOKEN: X.postToken,
      X_BEARER_TOKEN: X.bearerToken,
    },
    wire,
    close: async () => {
      for (const stop of stops) await stop();
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}
