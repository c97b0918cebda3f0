import { Command } from "commander";
import { createPublicClient, http, type PublicClient } from "viem";
import { launchFeaturesFromConfig } from "../../api/agent-launch/register.ts";
import { createApp } from "../../api/app.ts";
import { startServer } from "../../api/server.ts";
import { apiSettings } from "../../api/settings.ts";
import { attachWebSocket } from "../../api/ws/bridge.ts";
import { type Config, ConfigError } from "../../lib/config.ts";
import { createSql, type Sql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import { resolveWebhookSecrets } from "../../lib/events/webhook-secrets.ts";
import { createLogger, type Logger } from "../../lib/logger.ts";
import { outboundSettings } from "../../lib/outbound/settings.ts";
import { activePolicy } from "../../lib/policy/store.ts";
import { resolveServices } from "../../lib/services.ts";
import { createHyperliquidClient } from "../../services/hyperliquid/client.ts";
import { resolveHyperliquid } from "../../services/hyperliquid/config.ts";
import { createStewardClient } from "../../services/steward/client.ts";
import { loadServiceConfig } from "../config.ts";
import { isAddressInUse, onShutdown, reportReady } from "../lifecycle.ts";
import { launchPreviewFromConfig, sessionFeaturesFromConfig } from "../session-features.ts";

export function apiCommand(): Command {
  return new Command("api")
    .description("serve the REST API and MCP at /mcp (HOST:PORT)")
    .action(async () => {
      // The devnet's addresses and relayer key as configuration: deposit writes need them.
      const config = await loadServiceConfig();
      const log = createLogger("api", config.LOG_LEVEL);
      const databaseUrl = resolveDatabaseUrl(config);
      const sql = createSql(databaseUrl, { appName: "launchpad-api" });
      await migrate(sql);
      const { app, settings, stop } = createApiApp(config, sql, databaseUrl, log);
      const server = await startServer({
        app,
        host: config.HOST,
        port: config.PORT,
        logger: log,
      }).catch((error: unknown) => {
        if (isAddressInUse(error))
          throw new ConfigError("PORT", `${config.HOST}:${config.PORT} is already in use`);
        throw error;
      });
      const ws = await attachWebSocket({
        server: server.server,
        sql,
        viewsSchema: settings.viewsSchema,
        trustProxy: settings.trustProxy,
        logger: log,
      });
      log.info({ url: config.apiUrl, ws: config.wsUrl }, "api listening");
      reportReady();
      onShutdown(log, async () => {
        // Sockets first (1001), so the HTTP server's close does not wait on them.
        await ws.close();
        await server.close();
        await stop();
        await sql.end({ timeout: 5 });
      });
    });
}

/** The signer and the chain for policy reads, saves and agent orders. */
function policyFeatures(config: Config) {
  const { steward } = resolveServices(config);
  const rpc = config.rpcUrls[0];
  const hl = resolveHyperliquid(config);
  return {
    perps: hl
      ? { ...createHyperliquidClient({ apiUrl: hl.apiUrl }), isMainnet: hl.isMainnet }
      : undefined,
    steward: createStewardClient({
      url: steward.url,
      apiKey: steward.apiKey,
      tenantId: steward.tenantId,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    }),
    spot: rpc
      ? {
          client: createPublicClient({ transport: http(rpc) }) as PublicClient,
          router: config.DEX_ROUTER_ADDRESS,
          wbnb: config.WBNB_ADDRESS,
          bnbUsdFeed: config.BNB_USD_FEED_ADDRESS,
          platform: [config.IDENTITY_REGISTRY_ADDRESS, config.TOKEN_MANAGER_ADDRESS],
        }
      : undefined,
  };
}

/**
 * The API app exactly as `launchpad api` serves it: every feature the configuration turns on.
 * Tests use it to list the routes the service really serves (the inventory check).
 *
 * @example
 * const { app, stop } = createApiApp(config, sql, databaseUrl, log);
 */
export function createApiApp(config: Config, sql: Sql, databaseUrl: string, log: Logger) {
  const launch = launchFeaturesFromConfig(config, databaseUrl, sql);
  launch.features.preview = launchPreviewFromConfig(config, sql, log);
  const settings = apiSettings(config);
  const app = createApp({
    logger: log,
    env: config.LAUNCHPAD_ENV,
    sql,
    settings,
    launch: launch.features,
    dashboard: { policy: (walletId) => activePolicy(sql, walletId) },
    webhooks: { ...outboundSettings(config), adminToken: config.ADMIN_TOKEN },
    sessions: sessionFeaturesFromConfig(config, sql, log),
    events: { webhookSecrets: resolveWebhookSecrets(config), adminToken: config.ADMIN_TOKEN },
    policy: policyFeatures(config),
  });
  return { app, settings, stop: launch.stop };
}
