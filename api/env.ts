import type { Logger } from "../lib/logger.ts";

/** Who made an authenticated request (set by the authentication of a later issue). */
export type Principal = { kind: "agent" | "user"; id: string };

/** Variables every request carries through the middleware chain. */
export type AppEnv = {
  Variables: {
    requestId: string;
    log: Logger;
    /** The client's IP address, from the socket or the trusted proxies' header. */
    clientIp: string;
    /** Set once a request is authenticated; the rate limit then counts per principal. */
    principal?: Principal;
  };
};
