import { Command } from "commander";
import { createApp } from "../../api/app.ts";
import { launchFeaturesFromConfig } from "../../api/launch/register.ts";
import { startServer } from "../../api/server.ts";
import { apiSettings } from "../../api/settings.ts";
import { ConfigError, loadConfig } from "../../lib/config.ts";
import { createSql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import { createLogger } from "../../lib/logger.ts";
import { isAddressInUse, onShutdown, reportReady } from "../lifecycle.ts";

export function apiCommand(): Command {
  return new Command("api")
    .description("serve the REST API and MCP at /mcp (HOST:PORT)")
    .action(async () => {
      const config = loadConfig();
      const log = createLogger("api", config.LOG_LEVEL);
      const databaseUrl = resolveDatabaseUrl(config);
      const sql = createSql(databaseUrl, { appName: "launchpad-api" });
      await migrate(sql);
      const launch = launchFeaturesFromConfig(config, databaseUrl, sql);
      const app = createApp({
        logger: log,
        env: config.LAUNCHPAD_ENV,
        sql,
        settings: apiSettings(config),
        launch: launch.features,
      });
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
      log.info({ url: config.apiUrl }, "api listening");
      reportReady();
      onShutdown(log, async () => {
        await server.close();
        await launch.stop();
        await sql.end({ timeout: 5 });
      });
    });
}
