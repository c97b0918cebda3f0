import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Config } from "./config.ts";
import { readOrCreateJson } from "./json-file.ts";

/** Where the external services are and how we authenticate to them. */
export type ServiceEndpoints = {
  steward: {
    url: string;
    apiKey: string;
    tenantId: string;
    webhookSecret: string;
    local: boolean;
  };
  fourMeme: { url: string; local: boolean };
  timeoutMs: number;
  /** Origins whose images skip the https and public-address rules (local stand-ins only). */
  trustedImageOrigins: string[];
};

/** The local stand-in's tenant when STEWARD_TENANT_ID is unset. */
export const LOCAL_STEWARD_TENANT = "launchpad-local";

type LocalSecrets = { stewardApiKey: string; stewardWebhookSecret: string; masterKey: string };

/**
 * Endpoints of the steward signer and four.meme's create API: the configured URLs, or the local
 * stand-ins (whose shared secrets are generated once into the data directory, so the API,
 * the worker and the stand-ins started beside them agree without any configuration).
 *
 * @example
 * const { steward } = resolveEndpoints(loadConfig()); // steward.url "http://127.0.0.1:3011"
 */
export function resolveEndpoints(config: Config): ServiceEndpoints {
  const needLocal = !config.STEWARD_URL || !config.FOUR_MEME_API_URL;
  const local = needLocal ? localSecrets(config.dataDir) : undefined;
  // four.meme's base host is https://four.meme/meme-api; the stand-in serves the same base path.
  const launchpadUrl =
    config.FOUR_MEME_API_URL ?? `http://127.0.0.1:${config.FOUR_MEME_API_PORT}/meme-api`;
  const trusted =
    config.LAUNCH_IMAGE_TRUSTED_ORIGINS ??
    // Local mode: the stand-in launchpad hosts the sample images over plain HTTP on loopback.
    (config.LAUNCHPAD_ENV !== "production" && !config.FOUR_MEME_API_URL ? [launchpadUrl] : []);
  return {
    steward: {
      url: (config.STEWARD_URL ?? `http://127.0.0.1:${config.STEWARD_PORT}`).replace(/\/$/, ""),
      apiKey: config.STEWARD_API_KEY ?? (local as LocalSecrets).stewardApiKey,
      tenantId: config.STEWARD_TENANT_ID ?? LOCAL_STEWARD_TENANT,
      webhookSecret: config.STEWARD_WEBHOOK_SECRET ?? (local as LocalSecrets).stewardWebhookSecret,
      local: !config.STEWARD_URL,
    },
    fourMeme: { url: launchpadUrl.replace(/\/$/, ""), local: !config.FOUR_MEME_API_URL },
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    trustedImageOrigins: trusted.map((u) => new URL(u).origin),
  };
}

/** The stand-ins' master key for keys at rest: configured, or generated into the data dir. */
export function stewardMasterKey(config: Config): Buffer {
  const hex = config.STEWARD_MASTER_KEY ?? localSecrets(config.dataDir).masterKey;
  return Buffer.from(hex.slice(2), "hex");
}

/** Reads or creates (exactly once, even with racing roles) the local secrets file, mode 0600. */
export function localSecrets(dataDir: string): LocalSecrets {
  return readOrCreateSecret<LocalSecrets>(dataDir, "local-services.json", () => ({
    stewardApiKey: randomBytes(32).toString("base64url"),
    stewardWebhookSecret: randomBytes(32).toString("base64url"),
    masterKey: `0x${randomBytes(32).toString("hex")}`,
  }));
}

/**
 * The web role's credential at the API (`X-Service-Key`): WEB_SERVICE_KEY, else, outside
 * production, one generated into the data directory so `launchpad web` and `launchpad api`
 * started side by side agree without configuration. Undefined in production without the
 * variable: the web app is then an anonymous client, counted per IP like any other.
 *
 * @example
 * const key = webServiceKey(loadConfig()); // "k3Jx…" (43 characters) in local mode
 */
export function webServiceKey(config: Config): string | undefined {
  if (config.WEB_SERVICE_KEY) return config.WEB_SERVICE_KEY;
  if (config.LAUNCHPAD_ENV === "production") return undefined;
  // A file of its own: data directories made before this secret keep their other secrets.
  return readOrCreateSecret(config.dataDir, "web-service.json", () => ({
    key: randomBytes(32).toString("base64url"),
  })).key;
}

/** Reads `secrets/<name>` or creates it with `make()`: see readOrCreateJson. */
function readOrCreateSecret<T>(dataDir: string, name: string, make: () => T): T {
  return readOrCreateJson(join(dataDir, "secrets", name), make);
}
