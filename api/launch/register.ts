import { OpenAPIHono } from "@hono/zod-openapi";
import type { Config } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import { resolveServices } from "../../lib/services.ts";
import type { AppEnv } from "../env.ts";
import { registerAdmin } from "../routes/admin.ts";
import { registerLaunch } from "../routes/launch.ts";
import { registerMcp } from "../routes/mcp.ts";
import { registerStewardWebhooks } from "../routes/webhooks.ts";
import { createSagaProducer, type LaunchDeps } from "./service.ts";

/** What the agent launch features need from the process that serves them. */
export type LaunchFeatures = {
  launch: LaunchDeps;
  /** Operator endpoints answer only with this token; unset turns them off. */
  adminToken?: string;
  /** Shared secret of the steward's webhooks. */
  stewardWebhookSecret: string;
};

/**
 * Registers the launch endpoint, the registration files, the operator endpoints, the steward
 * webhooks and MCP at /mcp. MCP calls the same launch route in-process (no second copy of
 * its checks), and reads AGENT.md from the main app.
 *
 * @example
 * registerLaunchFeatures(app, { sql, features });
 */
export function registerLaunchFeatures(
  app: OpenAPIHono<AppEnv>,
  d: { sql: Sql; features: LaunchFeatures },
) {
  registerLaunch(app, { sql: d.sql, launch: d.features.launch });
  registerAdmin(app, { sql: d.sql, adminToken: d.features.adminToken });
  registerStewardWebhooks(app, { sql: d.sql, secret: d.features.stewardWebhookSecret });
  // The launch route alone, without the per-IP limiter (the MCP request itself was counted).
  const launchOnly = new OpenAPIHono<AppEnv>();
  registerLaunch(launchOnly, { sql: d.sql, launch: d.features.launch });
  registerMcp(app, {
    call: async (path, init) =>
      path === "/v2/agents/launch" ? launchOnly.request(path, init) : app.request(path, init),
  });
}

/**
 * The launch features of a loaded configuration, with the pg-boss producer they send saga
 * jobs through (stop it on shutdown).
 *
 * @example
 * const { features, stop } = launchFeaturesFromConfig(config, databaseUrl, sql);
 */
export function launchFeaturesFromConfig(config: Config, databaseUrl: string, sql: Sql) {
  const services = resolveServices(config);
  const producer = createSagaProducer(databaseUrl);
  const features: LaunchFeatures = {
    launch: {
      sql,
      enqueue: producer.enqueue,
      trustedImageOrigins: services.trustedImageOrigins,
      deadlineMs: config.LAUNCH_DEADLINE_SECONDS * 1000,
      webUrl: config.WEB_URL.replace(/\/$/, ""),
      launchpadTokenUrl: config.LAUNCHPAD_TOKEN_URL,
    },
    adminToken: config.ADMIN_TOKEN,
    stewardWebhookSecret: services.steward.webhookSecret,
  };
  return { features, stop: producer.stop };
}
