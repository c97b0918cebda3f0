import type { OpenAPIHono } from "@hono/zod-openapi";
import { createPublicClient, http, type PublicClient } from "viem";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import type { ApiSettings } from "../settings.ts";
import { registerAuth } from "./siwe-routes.ts";
import { registerSocialAuth } from "./x-login-routes.ts";
import type { XOAuthDeps } from "./x-oauth.ts";

/** What the session features need beyond the database and settings; all optional. */
export type SessionFeatures = {
  /** Chain reads for contract-wallet signatures; by default an HTTP client on the first RPC URL. */
  chain?: PublicClient;
  /** X OAuth for patrons; absent: /auth/social/* answer 503. */
  oauth?: XOAuthDeps;
};

/** Registers the session endpoints: SIWE and the patrons' X login. */
export function registerSessionFeatures(
  app: OpenAPIHono<AppEnv>,
  d: { sql: Sql; settings: ApiSettings; env: string; features?: SessionFeatures },
) {
  const rpc = d.settings.rpcUrls[0];
  const chain =
    d.features?.chain ??
    (rpc
      ? (createPublicClient({
          transport: http(rpc, { timeout: 10_000, retryCount: 1 }),
        }) as PublicClient)
      : undefined);
  const origins = [d.settings.webUrl, d.settings.apiUrl];
  const cookie = { secure: d.env === "production" };
  registerAuth(app, { sql: d.sql, origins, cookie, chain });
  registerSocialAuth(app, {
    sql: d.sql,
    webUrl: d.settings.webUrl,
    origins,
    cookie,
    oauth: d.features?.oauth,
  });
}
