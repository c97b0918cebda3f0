import { Command } from "commander";
import { loadConfig, requirePublicBaseUrl } from "../../lib/config.ts";
import { webServiceKey } from "../../lib/endpoints.ts";
import { createLogger } from "../../lib/logger.ts";
import { secretUrlsOf } from "../../lib/secret-urls.ts";
import { startWeb } from "../../web/server.ts";
import { onShutdown, portTaken, reportReady } from "../lifecycle.ts";

export function webCommand(): Command {
  return new Command("web")
    .description("serve the web app (agent pages, launches) on HOST:WEB_PORT, a client of the API")
    .action(async () => {
      const config = loadConfig();
      requirePublicBaseUrl(config, "the web app sends browsers to the API at it");
      const log = createLogger("web", config.LOG_LEVEL, { secretUrls: secretUrlsOf(config) });
      const serviceKey = webServiceKey(config);
      if (!serviceKey)
        log.warn(
          "WEB_SERVICE_KEY is not set: the web app reads the API as an anonymous client, within RATE_LIMIT_PER_MINUTE for its address",
        );
      const web = await startWeb({
        host: config.HOST,
        port: config.webPort,
        webUrl: config.WEB_URL,
        apiUrl: config.apiUrl,
        wsUrl: config.wsUrl,
        serviceKey,
        visitorsPerMinute: config.WEB_RATE_LIMIT_PER_MINUTE,
        trustProxy: config.TRUST_PROXY,
        cacheDir: config.dataDir,
        logger: log,
      }).catch(portTaken("WEB_PORT", `${config.HOST}:${config.webPort}`));
      log.info({ url: config.WEB_URL, api: config.apiUrl }, "web listening");
      reportReady();
      onShutdown(log, web.close);
    });
}
