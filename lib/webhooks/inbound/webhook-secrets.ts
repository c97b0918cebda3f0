import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Config } from "../../config.ts";
import { resolveEndpoints } from "../../endpoints.ts";
import { readOrCreateJson } from "../../json-file.ts";

/** One HMAC secret per webhook source (docs/events.md). */
export type WebhookSecrets = {
  steward: string;
  cloud: string;
  codeHost: string;
  agentEvents: string;
};
export type WebhookSecretName = keyof WebhookSecrets;

/** The variable that configures each secret (production requires all four). */
export const WEBHOOK_SECRET_VARIABLES = {
  steward: "STEWARD_WEBHOOK_SECRET",
  cloud: "CLOUD_WEBHOOK_SECRET",
  codeHost: "CODE_HOST_WEBHOOK_SECRET",
  agentEvents: "AGENT_EVENTS_WEBHOOK_SECRET",
} as const satisfies Record<WebhookSecretName, keyof Config>;

/**
 * The configured secrets; in local mode an unset one is generated once into
 * `<data dir>/secrets/webhooks.json` (the steward's is shared with its stand-in). Production
 * never gets here with one unset: `loadConfig` refuses it.
 *
 * @example
 * const { codeHost } = resolveWebhookSecrets(loadConfig());
 */
export function resolveWebhookSecrets(config: Config): WebhookSecrets {
  const local = localWebhookSecrets(config.dataDir);
  return {
    steward: resolveEndpoints(config).steward.webhookSecret,
    cloud: config.CLOUD_WEBHOOK_SECRET ?? local.cloud,
    codeHost: config.CODE_HOST_WEBHOOK_SECRET ?? local.codeHost,
    agentEvents: config.AGENT_EVENTS_WEBHOOK_SECRET ?? local.agentEvents,
  };
}

type Local = Omit<WebhookSecrets, "steward">;

/** Reads or creates (exactly once, even with racing roles) the file, mode 0600. */
function localWebhookSecrets(dataDir: string): Local {
  const fresh = () => randomBytes(32).toString("base64url");
  return readOrCreateJson<Local>(join(dataDir, "secrets", "webhooks.json"), () => ({
    cloud: fresh(),
    codeHost: fresh(),
    agentEvents: fresh(),
  }));
}
