import type { Config } from "./config.ts";
import { deriveKey } from "./crypto/seal.ts";
import { stewardMasterKey } from "./endpoints.ts";

/**
 * The key that seals one kind of the service's secrets at rest, derived (HKDF) for `purpose`
 * from SECRETS_KEY (required in production); outside production, unset, from the key the local
 * signer seals with (STEWARD_MASTER_KEY, or the one generated into the data directory), so local
 * data sealed before SECRETS_KEY existed still opens.
 *
 * @example
 * const key = secretsKey(config, "launchpad four.meme sessions v1"); // 32 bytes
 */
export function secretsKey(config: Config, purpose: string): Buffer {
  return deriveKey(
    config.SECRETS_KEY ? Buffer.from(config.SECRETS_KEY.slice(2), "hex") : stewardMasterKey(config),
    purpose,
  );
}
