import { createHash } from "node:crypto";
import type { Config } from "../../lib/config.ts";
import { localSecrets } from "../../lib/endpoints.ts";

/** Where X is and our credentials there; `local`: the stand-in started beside the service. */
export type XEndpoints = {
  oauthUrl: string;
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** The service account's token for announcements; undefined: announcements are off. */
  postToken?: string;
  /** The app's bearer token for reads (the social poller); undefined: the poller is off. */
  bearerToken?: string;
  local: boolean;
};

/**
 * X's endpoints of a configuration: the configured ones, or (outside production) the local
 * stand-in on X_PORT with credentials derived from the data directory's local secrets, so
 * the API, the worker and the stand-in agree without configuration. Undefined: X is off.
 *
 * @example
 * const x = resolveX(loadConfig()); // x?.oauthUrl "http://127.0.0.1:3013"
 */
export function resolveX(config: Config): XEndpoints | undefined {
  if (config.X_OAUTH_URL) {
    return {
      oauthUrl: config.X_OAUTH_URL.replace(/\/$/, ""),
      apiUrl: (config.X_API_URL ?? "https://api.x.com").replace(/\/$/, ""),
      clientId: config.X_CLIENT_ID as string,
      clientSecret: config.X_CLIENT_SECRET as string,
      postToken: config.X_POST_TOKEN,
      bearerToken: config.X_BEARER_TOKEN,
      local: false,
    };
  }
  if (config.LAUNCHPAD_ENV === "production") return undefined;
  const seed = localSecrets(config.dataDir).stewardApiKey;
  const derive = (label: string) =>
    createHash("sha256").update(`${label}:${seed}`).digest("base64url");
  const url = `http://127.0.0.1:${config.X_PORT}`;
  return {
    oauthUrl: url,
    apiUrl: url,
    clientId: config.X_CLIENT_ID ?? "launchpad-local",
    clientSecret: config.X_CLIENT_SECRET ?? derive("x-client-secret"),
    postToken: config.X_POST_TOKEN ?? derive("x-post-token"),
    bearerToken: config.X_BEARER_TOKEN ?? derive("x-bearer-token"),
    local: true,
  };
}
