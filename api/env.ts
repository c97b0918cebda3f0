import type { DashboardAgent } from "../lib/agents/read.ts";
import type { Logger } from "../lib/logger.ts";
import type { Session } from "./session.ts";

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
    /** The agent of an `/v2/agents/{agent}` route, set by `middleware/agent-path`. */
    agent?: DashboardAgent;
    /** Set by `requireSession`: the SIWE or patron session of the cookie. */
    session?: Session;
    /** Set by the body limit when the body outgrew it: the answer is 413 whoever read it. */
    bodyTooLarge?: boolean;
    /** Inbound webhooks: the raw body whose signature was verified. */
    webhookBody?: string;
  };
};
