import { OpenAPIHono } from "@hono/zod-openapi";
import { createSagaProducer } from "../../jobs/launch/producer.ts";
import type { Config } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import { resolveEndpoints } from "../../lib/endpoints.ts";
import type { AppEnv } from "../env.ts";
import { registerMcp } from "./mcp.ts";
import { type AgentLaunchPreviewBody, type LaunchAsked, registerLaunchPreview } from "./preview.ts";
import { registerLaunch } from "./routes.ts";
import type { LaunchDeps } from "./service.ts";

/** What the agent launch features need from the process that serves them. */
export type LaunchFeatures = {
  launch: LaunchDeps;
  /** The launch's dry run (POST /v2/agents/launch/preview); absent: that route is off. */
  preview?: (agentId: string, asked: LaunchAsked) => Promise<AgentLaunchPreviewBody>;
};

/**
 * Registers the launch endpoint, its dry run, the registration files and MCP at /mcp. MCP
 * calls the same launch route in-process (no second copy of its checks), and reads AGENT.md
 * from the main app.
 */
export function registerLaunchFeatures(
  app: OpenAPIHono<AppEnv>,
  d: { sql: Sql; features: LaunchFeatures },
) {
  if (d.features.preview) {
    registerLaunchPreview(app, {
      sql: d.sql,
      trustedImageOrigins: d.features.launch.trustedImageOrigins,
      perKeyPerMinute: d.features.launch.perKeyPerMinute,
      firstBuyMaxWei: d.features.launch.firstBuyMaxWei,
      preview: d.features.preview,
    });
  }
  registerLaunch(app, { sql: d.sql, launch: d.features.launch });
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
  const services = resolveEndpoints(config);
  const producer = createSagaProducer(databaseUrl);
  const features: LaunchFeatures = {
    launch: {
      sql,
      enqueue: producer.enqueue,
      trustedImageOrigins: services.trustedImageOrigins,
      deadlineMs: config.LAUNCH_DEADLINE_SECONDS * 1000,
      webUrl: config.WEB_URL.replace(/\/$/, ""),
      launchpadTokenUrl: config.LAUNCHPAD_TOKEN_URL,
      perKeyPerMinute: config.LAUNCH_RATE_LIMIT_PER_MINUTE,
      firstBuyMaxWei: config.firstBuyMaxWei,
    },
  };
  return { features, stop: producer.stop };
}
