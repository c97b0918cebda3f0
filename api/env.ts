import type { Logger } from "../lib/logger.ts";
import type { Session } from "./middleware/session/store.ts";

/** Who made an authenticated request (set by the authentication of a later issue). */
/** Who a request is counted as: an agent key, a signed-in user, or one of our own roles. */
export type Principal = { kind: "agent" | "user" | "service"; id: string };

/** Variables every request carries through the middleware chain. */
export type AppEnv = {
  Variables: {
    requestId: string;
    log: Logger;
    /** The client's IP address, from the socket or the trusted proxies' header. */
    clientIp: string;
    /** Set once a request is authenticated; the rate limit then counts per principal. */
    principal?: Principal;
    /** The agent of an agent route, resolved from its token address or its id. */
    agentId?: string;
    /** Set by `requireSession`: the SIWE or patron session of the cookie. */
    session?: Session;
    /** Set by the body limit when the body outgrew it: the answer is 413 whoever read it. */
    bodyTooLarge?: boolean;
    /** Inbound webhooks: the raw body whose signature was verified. */
    webhookBody?: string;
  };
};
