import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

/**
 * The address a request came from, for per-client limits: the socket's peer, or with
 * `trustProxy` = N the N-th entry from the right of `X-Forwarded-For` (each proxy appends the
 * address it saw, so entries left of the trusted ones may be forged by the client). Shared by
 * the API's limiter and the web app's visitor limit.
 *
 * @example
 * clientAddress(c, 1); // "203.0.113.7" behind one load balancer
 */
export function clientAddress(c: Context, trustProxy: number): string {
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
