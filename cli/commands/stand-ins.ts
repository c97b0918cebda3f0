import { join } from "node:path";
import { Command } from "commander";
import type { Hono } from "hono";
import { resolveArbitrum } from "../../lib/arbitrum.ts";
import { type Config, ConfigError, loadConfig } from "../../lib/config.ts";
import { resolveEndpoints, stewardMasterKey } from "../../lib/endpoints.ts";
import { serveHttp } from "../../lib/http/serve.ts";
import { createLogger, type Logger } from "../../lib/logger.ts";
import { secretUrlsOf } from "../../lib/secret-urls.ts";
import { loadServiceConfig } from "../config.ts";
import { onShutdown, portTaken, reportReady } from "../lifecycle.ts";

/** Serves a stand-in on loopback (lib/http/serve.ts, as every server of ours listens). */
async function listen(app: Hono, port: number, variable: string, log: Logger) {
  const server = await serveHttp({ fetch: app.fetch, host: "127.0.0.1", port }).catch(
    portTaken(variable, `127.0.0.1:${port}`),
  );
  log.debug({ port }, "listening");
  return server;
}

/** A started stand-in: what to log it as, where it answers, and how it stops. */
type StandIn = { label: string; url: string; stop: () => Promise<void> };

/**
 * A command that starts one stand-in, reports it ready and stops it on a signal. `start` gets
 * the configuration (`load`: the plain one, or with the devnet's record folded in) and a logger.
 */
function standInCommand(
  name: string,
  description: string,
  load: () => Config | Promise<Config>,
  start: (config: Config, log: Logger) => Promise<StandIn>,
): Command {
  return new Command(name).description(description).action(async () => {
    const config = await load();
    const log = createLogger(name, config.LOG_LEVEL, { secretUrls: secretUrlsOf(config) });
    const standIn = await start(config, log);
    log.info({ url: standIn.url }, `${standIn.label} listening`);
    reportReady();
    onShutdown(log, standIn.stop);
  });
}

/** `launchpad steward`: the local stand-in of the steward signer (local mode only). */
export function stewardCommand(): Command {
  return standInCommand(
    "steward",
    "run the local stand-in of the steward signer on 127.0.0.1:STEWARD_PORT",
    loadServiceConfig,
    async (config, log) => {
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
        requestsPerMinute: config.STEWARD_STANDIN_RATE_LIMIT_PER_MINUTE,
      });
      const server = await listen(app, config.STEWARD_PORT, "STEWARD_PORT", log);
      return { label: "steward stand-in", url: s.steward.url, stop: server.close };
    },
  );
}

/** `launchpad four-meme`: the local stand-in of four.meme's create API (devnet only). */
export function fourMemeCommand(): Command {
  return standInCommand(
    "four-meme",
    "run the local stand-in of four.meme's create API on 127.0.0.1:FOUR_MEME_API_PORT",
    loadConfig,
    async (config, log) => {
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
      return { label: "four.meme stand-in", url: s.fourMeme.url, stop: server.close };
    },
  );
}

/** `launchpad x`: the local stand-in of X's OAuth 2.0 and API v2 (local mode only). */
export function xCommand(): Command {
  return standInCommand(
    "x",
    "run the local stand-in of X (OAuth 2.0 with PKCE, users/me, tweets) on 127.0.0.1:X_PORT",
    loadConfig,
    async (config, log) => {
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
        // The tier's windows, shortened as the pollers' are on a test stack (POLL_TIME_SCALE).
        rateLimits: {
          tier: config.X_API_TIER,
          timeScale:
            config.LAUNCHPAD_ENV === "test" && config.POLL_TIME_SCALE ? config.POLL_TIME_SCALE : 1,
        },
      });
      const server = await listen(app, config.X_PORT, "X_PORT", log);
      return { label: "X stand-in", url: x.oauthUrl, stop: server.close };
    },
  );
}

/** `launchpad hyperliquid`: the local stand-in of the perps venue (local mode only). */
export function hyperliquidCommand(): Command {
  return standInCommand(
    "hyperliquid",
    "run the local stand-in of the perps venue (Hyperliquid /info, /exchange) on 127.0.0.1:HYPERLIQUID_PORT",
    // The devnet's record as configuration: the local Arbitrum chain whose bridge it watches.
    loadServiceConfig,
    async (config, log) => {
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
      }).catch(portTaken("HYPERLIQUID_PORT", `127.0.0.1:${config.HYPERLIQUID_PORT}`));
      return { label: "perps venue stand-in", url: hl.apiUrl, stop: server.stop };
    },
  );
}

/** `launchpad safe-tx-service`: the local Safe Transaction Service (local mode only). */
export function safeTxServiceCommand(): Command {
  return standInCommand(
    "safe-tx-service",
    "run the local stand-in of the Safe Transaction Service on 127.0.0.1:SAFE_TX_SERVICE_PORT",
    loadConfig,
    async (config, log) => {
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
      return { label: "Safe Transaction Service stand-in", url: safe.apiUrl, stop: server.close };
    },
  );
}
