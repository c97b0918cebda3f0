import { createDecipheriv, pbkdf2Sync, scryptSync, timingSafeEqual } from "node:crypto";
import { type Hex, keccak256 } from "viem";
import { LaunchpadError } from "../errors.ts";

/** An encrypted key file in the Web3 Secret Storage v3 format (geth, `cast wallet new`, ethers). */
export type Keystore = {
  version: 3;
  crypto: {
    cipher: string;
    cipherparams: { iv: string };
    ciphertext: string;
    kdf: string;
    kdfparams: Record<string, unknown>;
    mac: string;
  };
};

export type DecryptKeystoreErrorType = KeystoreError;

/** A key file that cannot be read: not v3, an unsupported algorithm, or a wrong password. */
export class KeystoreError extends LaunchpadError<"KEYSTORE"> {
  override name = "KeystoreError";
  constructor(message: string, p: { cause?: unknown } = {}) {
    super("KEYSTORE", { message, cause: p.cause });
  }
}

/**
 * Decrypts a Web3 Secret Storage v3 key file (scrypt or PBKDF2-HMAC-SHA256, AES-128-CTR) and
 * returns the private key. A wrong password fails on the MAC, before any decryption.
 *
 * @example
 * const key = decryptKeystore(readFileSync("deployer.json", "utf8"), password);
 * const account = privateKeyToAccount(key);
 */
export function decryptKeystore(json: string, password: string): Hex {
  let file: Keystore;
  try {
    file = JSON.parse(json) as Keystore;
  } catch (error) {
    throw new KeystoreError("the keystore file is not JSON", { cause: error });
  }
  // Some writers (old geth) spell the field `Crypto`.
  const c = file.crypto ?? (file as unknown as { Crypto: Keystore["crypto"] }).Crypto;
  if (file.version !== 3 || !c) {
    throw new KeystoreError("the keystore file is not a Web3 Secret Storage v3 file");
  }
  if (c.cipher !== "aes-128-ctr") {
    throw new KeystoreError(
      `unsupported keystore cipher ${c.cipher} (aes-128-ctr is the standard)`,
    );
  }
  const derived = deriveKey(c.kdf, c.kdfparams, password);
  const ciphertext = Buffer.from(c.ciphertext, "hex");
  const mac = Buffer.from(
    keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext])).slice(2),
    "hex",
  );
  const expected = Buffer.from(c.mac, "hex");
  if (expected.length !== mac.length || !timingSafeEqual(expected, mac)) {
    throw new KeystoreError("wrong keystore password (the MAC does not match)");
  }
  const decipher = createDecipheriv(
    "aes-128-ctr",
    derived.subarray(0, 16),
    Buffer.from(c.cipherparams.iv, "hex"),
  );
  const key = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  if (key.length !== 32) throw new KeystoreError("the keystore does not hold a 32-byte key");
  return `0x${key.toString("hex")}`;
}

function deriveKey(kdf: string, params: Record<string, unknown>, password: string): Buffer {
  const salt = Buffer.from(String(params.salt ?? ""), "hex");
  const dklen = Number(params.dklen ?? 32);
  if (dklen < 32) throw new KeystoreError(`keystore dklen ${dklen} is below 32`);
  if (kdf === "scrypt") {
    const N = Number(params.n);
    const r = Number(params.r);
    const p = Number(params.p);
    // scrypt needs 128 * N * r bytes: geth's standard N=262144, r=8 takes 256 MiB.
    return scryptSync(password.normalize("NFKC"), salt, dklen, {
      N,
      r,
      p,
      maxmem: 128 * N * r + 64 * 1024 * 1024,
    });
  }
  if (kdf === "pbkdf2") {
    if (params.prf !== "hmac-sha256") {
      throw new KeystoreError(`unsupported keystore prf ${String(params.prf)}`);
    }
    return pbkdf2Sync(password.normalize("NFKC"), salt, Number(params.c), dklen, "sha256");
  }
  throw new KeystoreError(`unsupported keystore kdf ${kdf} (scrypt and pbkdf2 are the standard)`);
}
