import type { Logger } from "../lib/logger.ts";

/** Variables every request carries through the middleware chain. */
export type AppEnv = {
  Variables: {
    requestId: string;
    log: Logger;
  };
};
