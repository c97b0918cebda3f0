import { clientAddress } from "../../../lib/http/client-ip.ts";
import { STAND_IN_LIMITS } from "../../limits.ts";
import { standInRateLimit } from "../rate-limit.ts";

/**
 * The hosted Safe API's limit (https://docs.safe.global/core-api/how-to-use-api-keys, "Rate
 * Limits and Usage Tiers": 5 requests a second by default), counted per API key (the
 * `Authorization: Bearer` key api-kit sends). The docs do not say how keyless requests are
 * counted (they call them deprecated); the stand-in counts them per client address. Past it: 429
 * with the service's error shape, `{"detail": …}` (its documented 429 is
 * `{"detail": "Monthly quota exceeded."}`, docs.safe.global/core-api/api-authentication; the
 * per-second message is not published, so the wording here is the stand-in's). No
 * `Retry-After`: none is documented, and the docs tell clients to back off exponentially.
 *
 * @example
 * app.use("*", safeServiceThrottle(5).middleware);
 */
export function safeServiceThrottle(
  requestsPerSecond: number = STAND_IN_LIMITS.safeTxServiceRequestsPerSecond,
) {
  return standInRateLimit({
    limit: requestsPerSecond,
    windowMs: 1_000,
    key: (c) => {
      const auth = c.req.header("authorization") ?? "";
      return auth.toLowerCase().startsWith("bearer ")
        ? `key:${auth.slice(7).trim()}`
        : `ip:${clientAddress(c, 0)}`;
    },
    refuse: (c) =>
      c.json({ detail: `Rate limit exceeded: ${requestsPerSecond} requests per second.` }, 429),
  });
}
