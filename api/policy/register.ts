import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { type OrderRouteDeps, registerOrders } from "./orders.ts";
import { registerPledge } from "./pledge.ts";
import { type PolicySigner, registerPolicy } from "./policy.ts";

/** What the trading features need from the signer and the venues; all optional. */
export type PolicyFeatures = {
  steward?: PolicySigner & NonNullable<OrderRouteDeps["steward"]>;
  spot?: OrderRouteDeps["spot"];
  perps?: OrderRouteDeps["perps"];
  now?: OrderRouteDeps["now"];
  afterPolicyRead?: OrderRouteDeps["afterPolicyRead"];
};

/** Trading policies and agent orders: the service keeps the policy and judges every order. */
export function registerPolicyAndOrders(
  app: OpenAPIHono<AppEnv>,
  d: { sql: Sql; adminToken?: string; features?: PolicyFeatures },
) {
  const spot = d.features?.spot;
  registerPolicy(app, {
    sql: d.sql,
    adminToken: d.adminToken,
    steward: d.features?.steward,
    rulesContext: { router: spot?.router, platform: spot?.platform ?? [] },
  });
  registerOrders(app, { sql: d.sql, adminToken: d.adminToken, ...d.features });
  registerPledge(app, { sql: d.sql, adminToken: d.adminToken, now: d.features?.now });
}
