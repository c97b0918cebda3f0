import type { Config } from "../config.ts";
import { deriveKey } from "../crypto/seal.ts";
import { stewardMasterKey } from "../services.ts";
import { type OutboundTiming, outboundTiming } from "./timing.ts";

/** What the API and the dispatcher need from the configuration for outbound webhooks. */
export type OutboundSettings = {
  /** Seals subscription secrets at rest: derived from the signer's master key (HKDF). */
  secretsKey: Buffer;
  /** Origins exempt from the https and public-address rules (local mode only). */
  trustedOrigins: string[];
  timing: OutboundTiming;
};

/**
 * Outbound webhook settings of a loaded configuration. The secrets key comes from the same
 * master key as the signer's sealed keys (STEWARD_MASTER_KEY, or the one generated into the
 * data directory), under its own HKDF purpose.
 *
 * @example
 * const { secretsKey, trustedOrigins } = outboundSettings(loadConfig());
 */
export function outboundSettings(config: Config): OutboundSettings {
  return {
    secretsKey: deriveKey(stewardMasterKey(config), "launchpad outbound webhook secrets v1"),
    trustedOrigins: (config.OUTBOUND_WEBHOOK_TRUSTED_ORIGINS ?? []).map((u) => new URL(u).origin),
    timing: outboundTiming(
      config.LAUNCHPAD_ENV === "test" ? (config.OUTBOUND_WEBHOOK_TIME_SCALE ?? 1) : 1,
    ),
  };
}
