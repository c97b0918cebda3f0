import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import type { ViewRouteDeps } from "../http/read-deps.ts";
import type { DepositLaunchDeps } from "./create.ts";
import { registerLaunches } from "./read-routes.ts";
import { registerLaunchWrites } from "./write-routes.ts";

export type { DepositLaunchDeps };

/**
 * Deposit launches: the indexed launches and depositors, and the signed-in wallet's create and
 * preview (without `deposit`, no relayer or factory: the writes answer 503).
 */
export function registerDepositLaunch(
  app: OpenAPIHono<AppEnv>,
  d: ViewRouteDeps & { deposit?: DepositLaunchDeps },
) {
  registerLaunches(app, { sql: d.sql, settings: d.settings, reads: d.reads });
  registerLaunchWrites(app, {
    sql: d.sql,
    viewsSchema: d.settings.viewsSchema,
    origins: [d.settings.webUrl, d.settings.apiUrl],
    deposit: d.deposit,
  });
}
