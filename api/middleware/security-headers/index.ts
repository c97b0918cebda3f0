import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../env.ts";

export type SecurityHeadersOptions = {
  /** Sends Strict-Transport-Security (only when the public URL is https). */
  hsts: boolean;
};

/** A year: browsers keep to https for this long once they saw the header. */
const HSTS_MAX_AGE_SECONDS = 31_536_000;

/**
 * Headers every answer carries (`X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`,
 * `Referrer-Policy: no-referrer`, HSTS behind https), and `Cache-Control: no-store` on every
 * answer to a request that carried credentials (an agent key, an operator token or a session
 * cookie) or that sets a cookie: no shared cache may keep what one caller was shown.
 *
 * @example
 * app.use(securityHeaders({ hsts: apiUrl.startsWith("https:") }));
 */
export function securityHeaders(o: SecurityHeadersOptions): MiddlewareHandler<AppEnv> {
  return async function securityHeadersMiddleware(c, next) {
    await next();
    const h = c.res.headers;
    h.set("X-Content-Type-Options", "nosniff");
    h.set("X-Frame-Options", "DENY");
    h.set("Referrer-Policy", "no-referrer");
    if (o.hsts) h.set("Strict-Transport-Security", `max-age=${HSTS_MAX_AGE_SECONDS}`);
    const req = c.req.raw.headers;
    const credentialed =
      req.has("authorization") || req.has("x-agent-api-key") || req.has("cookie");
    if (credentialed || h.has("set-cookie")) h.set("Cache-Control", "no-store");
  };
}
