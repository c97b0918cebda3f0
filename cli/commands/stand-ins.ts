import { join } from "node:path";
import { Command } from "commander";
import type { Hono } from "hono";
import { resolveArbitrum } from "../../lib/arbitrum.ts";
import { ConfigError, loadConfig } from "../../lib/config.ts";
import { resolveEndpoints, stewardMasterKey } from "../../lib/endpoints.ts";
import { serveHttp } from "../../lib/http/serve.ts";
import { createLogger, type Logger } from "../../lib/logger.ts";
import { loadServiceConfig } from "../config.ts";
import { isAddressInUse, onShutdown, reportReady } from "../lifecycle.ts";

/** A start that failed on a taken port names the variable that set the port. */
function portTaken(variable: string, port: number) {
  return (error: unknown): never => {
    if (isAddressInUse(error))
      throw new ConfigError(variable, `127.0.0.1:${port} is already in use`);
    throw error;
  };
}

/** Serves a stand-in on loopback (lib/http/serve.ts, as every server of ours listens). */
async function listen(app: Hono, port: number, variable: string, log: Logger) {
  const server = await serveHttp({ fetch: app.fetch, host: "127.0.0.1", port }).catch(
    portTaken(variable, port),
  );
  log.debug({ port }, "listening");
  return server;
}

/** `launchpad steward`: the local stand-in of the steward signer (local mode only). */
export function stewardCommand(): Command {
  return new Command("steward")
    .description("run the local stand-in of the steward signer on 127.0.0.1:STEWARD_PORT")
    .action(async () => {
      const config = await loadServiceConfig();
      const log = createLogger("steward", config.LOG_LEVEL);
      const s = resolveEndpoints(config);
      const { createStewardApp } = await import("../../devnet/stand-ins/steward/server.ts");
      const app = createStewardApp({
        rpcUrl: config.rpcUrls[0] as string,
        chainId: 56,
        apiKey: s.steward.apiKey,
        tenantId: s.steward.tenantId,
        webhookBaseUrl: config.apiUrl,
        webhookSecret: s.steward.webhookSecret,
        storePath: join(config.dataDir, "steward", "store.json"),
        masterKey: stewardMasterKey(config),
        log,
      });
      const server = await listen(app, config.STEWARD_PORT, "STEWARD_PORT", log);
      log.info({ url: s.steward.url }, "steward stand-in listening");
      reportReady();
      onShutdown(log, server.close);
    });
}

/** `launchpad four-meme`: the local stand-in of four.meme's create API (devnet only). */
export function fourMemeCommand(): Command {
  return new Command("four-meme")
    .description("run the local stand-in of four.meme's create API on 127.0.0.1:FOUR_MEME_API_PORT")
    .action(async () => {
      const config = loadConfig();
      const log = createLogger("four-meme", config.LOG_LEVEL);
      // Loaded only here: the stand-in is part of the local world, never of a BSC deployment.
      const { readDeploymentRecord } = await import("../../devnet/record.ts");
      const { devnetAccounts } = await import("../../devnet/accounts.ts");
      const record = readDeploymentRecord(config.dataDir);
      if (!record)
        throw new Error(`no devnet deployment record in ${config.dataDir}: start the devnet first`);
      const s = resolveEndpoints(config);
      const { createFourMemeApp } = await import("../../devnet/stand-ins/four-meme/server.ts");
      const app = createFourMemeApp({
        record,
        signer: devnetAccounts().launchpadSigner,
        origin: new URL(s.fourMeme.url).origin,
        // The folder keeps its first name: a devnet's agents already point at the images in it.
        dir: join(config.dataDir, "launchpad-api", "img"),
        log,
      });
      const server = await listen(app, config.FOUR_MEME_API_PORT, "FOUR_MEME_API_PORT", log);
      log.info({ url: s.fourMeme.url }, "four.meme stand-in listening");
      reportReady();
      onShutdown(log, server.close);
    });
}

/** `launchpad x`: the local stand-in of X's OAuth 2.0 and API v2 (local mode only). */
export function xCommand(): Command {
  return new Command("x")
    .description(
      "run the local stand-in of X (OAuth 2.0 with PKCE, users/me, tweets) on 127.0.0.1:X_PORT",
    )
    .action(async () => {
      const config = loadConfig();
      const log = createLogger("x", config.LOG_LEVEL);
      const { resolveX } = await import("../../services/x/config.ts");
      const x = resolveX(config);
      if (!x?.local)
        throw new ConfigError("X_OAUTH_URL", "is set: the real X is used, no stand-in");
      const { createXStandIn } = await import("../../devnet/stand-ins/x/server.ts");
      const app = createXStandIn({
        clientId: x.clientId,
        clientSecret: x.clientSecret,
        serviceToken: x.postToken,
        appToken: x.bearerToken,
        log,
        statePath: join(config.dataDir, "x", "state.json"),
      });
      const server = await listen(app, config.X_PORT, "X_PORT", log);
      log.info({ url: x.oauthUrl }, "X stand-in listening");
      reportReady();
      onShutdown(log, server.close);
    });
}

/** `launchpad hyperliquid`: the local stand-in of the perps venue (local mode only). */
export function hyperliquidCommand(): Command {
  return new Command("hyperliquid")
    .description(
      "run the local stand-in of the perps venue (Hyperliquid /info, /exchange) on 127.0.0.1:HYPERLIQUID_PORT",
    )
    .action(async () => {
      // The devnet's record as configuration: the local Arbitrum chain whose bridge it watches.
      const config = await loadServiceConfig();
      const log = createLogger("hyperliquid", config.LOG_LEVEL);
      const { resolveHyperliquid } = await import("../../services/hyperliquid/config.ts");
      const hl = resolveHyperliquid(config);
      if (!hl?.local)
        throw new ConfigError("HYPERLIQUID_API_URL", "is set: the real venue is used, no stand-in");
      const { STAND_IN_LIMITS } = await import("../../devnet/limits.ts");
      const arbitrum = resolveArbitrum(config);
      const { startHyperliquidStandIn } = await import(
        "../../devnet/stand-ins/hyperliquid/start.ts"
      );
      const server = await startHyperliquidStandIn({
        log,
        port: config.HYPERLIQUID_PORT,
        statePath: join(config.dataDir, "hyperliquid", "state.json"),
        walkEveryMs: STAND_IN_LIMITS.hyperliquidWalkEveryMs,
        walkStepBps: STAND_IN_LIMITS.hyperliquidWalkStepBps,
        // Locally, USDC sent to the bridge on the local Arbitrum chain becomes a deposit.
        bridge: arbitrum?.devnet ? arbitrum : undefined,
        // A test stack whose polls run POLL_TIME_SCALE times as often has a venue whose rate
        // window (the minute) is as much shorter, as the pollers' budget window is: the same
        // weight per poll as in real time.
        weightPerMinute: STAND_IN_LIMITS.hyperliquidWeightPerMinute,
        weightWindowMs:
          60_000 *
          (config.LAUNCHPAD_ENV === "test" && config.POLL_TIME_SCALE ? config.POLL_TIME_SCALE : 1),
      }).catch(portTaken("HYPERLIQUID_PORT", config.HYPERLIQUID_PORT));
      log.info({ url: hl.apiUrl }, "perps venue stand-in listening");
      reportReady();
      onShutdown(log, server.stop);
    });
}

/** `launchpad safe-tx-service`: the local Safe Transaction Service (local mode only). */
export function safeTxServiceCommand(): Command {
  return new Command("safe-tx-service")
    .description(
      "run the local stand-in of the Safe Transaction Service on 127.0.0.1:SAFE_TX_SERVICE_PORT",
    )
    .action(async () => {
      const config = loadConfig();
      const log = createLogger("safe-tx-service", config.LOG_LEVEL);
      const { resolveSafeTxService } = await import("../../services/safe-tx-service/config.ts");
      const safe = resolveSafeTxService(config);
      if (!safe?.local)
        throw new ConfigError(
          "SAFE_TX_SERVICE_URL",
          "is set: the real service is used, no stand-in",
        );
      const { createSafeTxServiceStandIn } = await import(
        "../../devnet/stand-ins/safe-tx-service/server.ts"
      );
      const app = createSafeTxServiceStandIn({
        chainId: 56,
        rpcUrl: config.rpcUrls[0],
        log,
        statePath: join(config.dataDir, "safe-tx-service", "state.json"),
      });
      const server = await listen(app, config.SAFE_TX_SERVICE_PORT, "SAFE_TX_SERVICE_PORT", log);
      log.info({ url: safe.apiUrl }, "Safe Transaction Service stand-in listening");
      reportReady();
      onShutdown(log, server.close);
    });
}
