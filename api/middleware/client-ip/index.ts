import type { MiddlewareHandler } from "hono";
import { clientAddress } from "../../../lib/http/client-ip.ts";
import type { AppEnv } from "../../env.ts";

export type ClientIpOptions = {
  /**
   * Reverse proxies in front of the API. 0 reads the socket's peer; N reads the N-th entry
   * from the right of `X-Forwarded-For` (each proxy appends the address it saw, so entries
   * left of the trusted ones may be forged by the client).
   */
  trustProxy: number;
};

/**
 * Sets `clientIp`, the address the rate limit counts by.
 *
 * @example
 * app.use(clientIp({ trustProxy: 1 })); // behind one load balancer
 */
export function clientIp(o: ClientIpOptions): MiddlewareHandler<AppEnv> {
  return async function clientIpMiddleware(c, next) {
    c.set("clientIp", clientAddress(c, o.trustProxy));
    await next();
  };
}
