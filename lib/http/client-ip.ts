import { isIP } from "node:net";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
import { expandIpv6 } from "./ipv6.ts";

/**
 * The address a request came from, for per-client limits: the socket's peer, or with
 * `trustProxy` = N the N-th entry from the right of `X-Forwarded-For` (each proxy appends the
 * address it saw, so entries left of the trusted ones may be forged by the client). Shared by
 * the API's limiter and the web app's visitor limit; a limit counts it under `clientBucket`.
 *
 * @example
 * clientAddress(c, 1); // "203.0.113.7" behind one load balancer
 */
export function clientAddress(c: Context, trustProxy: number): string {
  return forwardedAddress(socketAddress(c), c.req.header("x-forwarded-for"), trustProxy);
}

/**
 * `clientAddress` from its parts, for a server without a Hono context (the WebSocket upgrade):
 * the socket's peer, the `X-Forwarded-For` header (repeated headers as Node gives them) and
 * the number of trusted proxies.
 *
 * @example
 * forwardedAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], 1);
 */
export function forwardedAddress(
  socket: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustProxy: number,
): string {
  const peer = unmapped(socket ?? "unknown");
  if (trustProxy === 0) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? ""))
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  // Fewer entries than trusted proxies: the request skipped a proxy; the leftmost is all we have.
  return hops[Math.max(0, hops.length - trustProxy)] ?? peer;
}

/** IPv4 clients of a dual-stack socket appear as ::ffff:a.b.c.d; count them as a.b.c.d. */
function unmapped(address: string): string {
  return address.startsWith("::ffff:") ? address.slice(7) : address;
}

function socketAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    // No Node socket (app.request() in tests without bindings): one shared bucket.
    return undefined;
  }
}

/**
 * The key a per-client limit counts an address under: an IPv4 address as it is (an IPv4-mapped
 * IPv6 one as its IPv4), an IPv6 address as its /64, the smallest prefix a subscriber gets
 * (RFC 6177), so rotating addresses inside one's own /64 does not buy a new budget.
 * Anything else (no socket in tests: "unknown") is its own key.
 *
 * @example
 * clientBucket("2001:db8:1:2:aaaa::1"); // "2001:db8:1:2::/64"
 * clientBucket("::ffff:203.0.113.7"); // "203.0.113.7"
 */
export function clientBucket(address: string): string {
  const family = isIP(address);
  if (family === 4) return address;
  if (family !== 6) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  const groups = expandIpv6(address).slice(0, 4);
  return `${groups.map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
