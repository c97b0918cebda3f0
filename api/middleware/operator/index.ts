import type { MiddlewareHandler } from "hono";
import { HttpError } from "../../errors.ts";
import { isOperatorToken } from "../agent-auth/index.ts";

/**
 * Operator-only requests: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time.
 * Without a configured token the operator API is off (404), so its routes do not advertise
 * themselves to a guesser.
 *
 * @example
 * app.get("/v2/admin/anomalies", operatorOnly(adminToken), handler);
 */
export function operatorOnly(token: string | undefined): MiddlewareHandler {
  return async function operatorOnlyMiddleware(c, next) {
    if (!token)
      throw new HttpError("not_found", {
        message: "the operator API is off (ADMIN_TOKEN is not set)",
      });
    if (!isOperatorToken(token, c.req.header("authorization"))) {
      throw new HttpError("not_authenticated", { message: "operator token missing or wrong" });
    }
    await next();
  };
}
