import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";

export type SameOriginOptions = {
  /** Origins allowed to send cookie-authenticated writes: the web app's and the API's own. */
  origins: string[];
};

/**
 * Refuses cross-site requests on cookie-authenticated writes (CSRF): a browser always sends
 * `Origin` on a POST, so an `Origin` that is not ours (or `null`) is 403 `not_authorized`,
 * and so is `Sec-Fetch-Site: cross-site` without one. A client that sends neither is not a
 * browser, cannot be made to carry someone else's cookie, and passes.
 *
 * @example
 * app.post("/v2/launches", sameOrigin({ origins: [webUrl, apiUrl] }), handler);
 */
export function sameOrigin(o: SameOriginOptions): MiddlewareHandler<AppEnv> {
  const allowed = new Set(o.origins.map((u) => new URL(u).origin));
  return async function sameOriginMiddleware(c, next) {
    const origin = c.req.header("origin");
    const site = c.req.header("sec-fetch-site");
    const crossSite = origin !== undefined ? !allowed.has(origin) : site === "cross-site";
    if (crossSite) {
      throw new HttpError("not_authorized", {
        message: `cross-site request refused: Origin ${origin ?? "(none)"} is not ${[...allowed].join(" or ")}`,
      });
    }
    await next();
  };
}
