import { Command } from "commander";
import { createPublicClient, http, type PublicClient } from "viem";
import { launchFeaturesFromConfig } from "../../api/agent-launch/register.ts";
import { createApp } from "../../api/app.ts";
import { startServer } from "../../api/server.ts";
import { apiSettings } from "../../api/settings.ts";
import { attachWebSocket } from "../../api/ws/bridge.ts";
import { type Config, requirePublicBaseUrl, requireSecretsKey } from "../../lib/config.ts";
import { createSql, type Sql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import { resolveEndpoints } from "../../lib/endpoints.ts";
import { startHeartbeat } from "../../lib/heartbeat/instances.ts";
import { DB_LIMITS } from "../../lib/limits.ts";
import { createLogger, type Logger } from "../../lib/logger.ts";
import { INSTANCE_DATABASES } from "../../lib/metrics/instances.ts";
import { activePolicy } from "../../lib/policy/store.ts";
import { secretUrlsOf } from "../../lib/secret-urls.ts";
import { resolveWebhookSecrets } from "../../lib/webhooks/inbound/webhook-secrets.ts";
import { outboundSettings } from "../../lib/webhooks/outbound/settings.ts";
import { createHyperliquidClient } from "../../services/hyperliquid/client.ts";
import { resolveHyperliquid } from "../../services/hyperliquid/config.ts";
import { createStewardClient } from "../../services/steward/client.ts";
import { loadServiceConfig } from "../config.ts";
import { onShutdown, portTaken, reportReady, surviveLostConnections } from "../lifecycle.ts";
import { launchPreviewFromConfig, sessionFeaturesFromConfig } from "../session-features.ts";

export function apiCommand(): Command {
  return new Command("api")
    .description("serve the REST API and MCP at /mcp (HOST:PORT)")
    .action(async () => {
      // The devnet's addresses and relayer key as configuration: deposit writes need them.
      const config = await loadServiceConfig();
      requirePublicBaseUrl(
        config,
        "the API writes it into agents' registration files and links, and X's callback",
      );
      requireSecretsKey(config);
      const log = createLogger("api", config.LOG_LEVEL, { secretUrls: secretUrlsOf(config) });
      surviveLostConnections(log);
      const databaseUrl = resolveDatabaseUrl(config);
      const sql = createSql(databaseUrl, {
        max: config.API_DATABASE_POOL_SIZE ?? DB_LIMITS.apiConnections,
        appName: "launchpad-api",
      });
      await migrate(sql);
      const { app, settings, stop } = createApiApp(config, sql, databaseUrl, log);
      const server = await startServer({
        app,
        host: config.HOST,
        port: config.PORT,
        logger: log,
      }).catch(portTaken("PORT", `${config.HOST}:${config.PORT}`));
      const ws = await attachWebSocket({
        server: server.server,
        sql,
        viewsSchema: settings.viewsSchema,
        trustProxy: settings.trustProxy,
        logger: log,
      });
      // Deep health and /metrics name instances of every role that went silent.
      const heartbeat = startHeartbeat({
        sql,
        role: "api",
        onError: (error) => log.warn({ err: error }, "heartbeat failed"),
      });
      const unwatch = INSTANCE_DATABASES.add({ sql });
      log.info({ url: config.apiUrl, ws: config.wsUrl }, "api listening");
      reportReady();
      onShutdown(log, async () => {
        unwatch();
        await heartbeat.stop();
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
  const { steward } = resolveEndpoints(config);
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
    adminToken: config.ADMIN_TOKEN,
    launch: launch.features,
    dashboard: { policy: (walletId) => activePolicy(sql, walletId) },
    webhooks: outboundSettings(config),
    sessions: sessionFeaturesFromConfig(config, sql, log),
    events: { webhookSecrets: resolveWebhookSecrets(config) },
    policy: policyFeatures(config),
  });
  return { app, settings, stop: launch.stop };
}
