import type { Config } from "../../config.ts";
import { secretsKey } from "../../secrets-key.ts";
import { type OutboundTiming, outboundTiming } from "./timing.ts";

/** What the API and the dispatcher need from the configuration for outbound webhooks. */
export type OutboundSettings = {
  /** Seals subscription secrets at rest: derived from SECRETS_KEY (HKDF). */
  secretsKey: Buffer;
  /** Origins exempt from the https and public-address rules (local mode only). */
  trustedOrigins: string[];
  timing: OutboundTiming;
};

/**
 * Outbound webhook settings of a loaded configuration. The secrets key is SECRETS_KEY's for
 * its own HKDF purpose (lib/secrets-key.ts).
 *
 * @example
 * const { secretsKey, trustedOrigins } = outboundSettings(loadConfig());
 */
export function outboundSettings(config: Config): OutboundSettings {
  return {
    secretsKey: secretsKey(config, "launchpad outbound webhook secrets v1"),
    trustedOrigins: (config.OUTBOUND_WEBHOOK_TRUSTED_ORIGINS ?? []).map((u) => new URL(u).origin),
    timing: outboundTiming(
      config.LAUNCHPAD_ENV === "test" ? (config.OUTBOUND_WEBHOOK_TIME_SCALE ?? 1) : 1,
    ),
  };
}
