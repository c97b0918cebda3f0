import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { registerTokenTax } from "./token-tax.ts";
import { type DividendRouteDeps, registerUserDividends } from "./users.ts";

/** Tax tokens' income and holders' dividends: per token, per wallet, and the keeper's opt-in. */
export function registerDividends(app: OpenAPIHono<AppEnv>, d: DividendRouteDeps) {
  registerTokenTax(app, d);
  registerUserDividends(app, d);
}
