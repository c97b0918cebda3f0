import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, MiddlewareHandler } from "hono";
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
    c.set("clientIp", resolveClientIp(c, o.trustProxy));
    await next();
  };
}

function resolveClientIp(c: Context, trustProxy: number): string {
  const socket = socketAddress(c);
  if (trustProxy === 0) return socket;
  const hops = (c.req.header("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  // Fewer entries than trusted proxies: the request skipped a proxy; the leftmost is all we have.
  return hops[Math.max(0, hops.length - trustProxy)] ?? socket;
}

function socketAddress(c: Context): string {
  try {
    const address = getConnInfo(c).remote.address ?? "unknown";
    // IPv4 clients of a dual-stack socket appear as ::ffff:a.b.c.d; count them as a.b.c.d.
    return address.startsWith("::ffff:") ? address.slice(7) : address;
  } catch {
    // No Node socket (app.request() in tests without bindings): one shared bucket.
    return "unknown";
  }
}
