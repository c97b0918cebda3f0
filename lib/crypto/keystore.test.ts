import { createRequire } from "node:module";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { decryptKeystore, KeystoreError } from "./keystore.ts";

// Key files written by another implementation (ethers v5, which the Safe contracts package brings),
// so the decryption is checked against the format as others write it, not against itself.
const require = createRequire(import.meta.url);
const { Wallet } = require("ethers") as {
  Wallet: new (
    key: string,
  ) => {
    address: string;
    encrypt(password: string, options: object): Promise<string>;
  };
};

const KEY = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";

describe("decryptKeystore", () => {
  it("opens a scrypt key file written by ethers and refuses a wrong password on the MAC", async () => {
    const json = await new Wallet(KEY).encrypt("correct horse", { scrypt: { N: 1024 } });
    // ethers spells the field `Crypto`, as geth once did: both are read.
    expect(JSON.parse(json).Crypto.kdf).toBe("scrypt");
    const key = decryptKeystore(json, "correct horse");
    expect(key).toBe(KEY);
    expect(privateKeyToAccount(key).address).toBe(new Wallet(KEY).address);
    expect(() => decryptKeystore(json, "wrong horse")).toThrow(KeystoreError);
    expect(() => decryptKeystore(json, "wrong horse")).toThrow(/wrong keystore password/);
  });

  it("opens a PBKDF2 key file and names what it cannot read", async () => {
    const scrypt = JSON.parse(await new Wallet(KEY).encrypt("pw", { scrypt: { N: 1024 } }));
    // The same key re-wrapped with PBKDF2-HMAC-SHA256, as geth's light mode and the spec allow.
    const { pbkdf2Sync, createCipheriv, randomBytes } = await import("node:crypto");
    const { keccak256 } = await import("viem");
    const salt = randomBytes(32);
    const iv = randomBytes(16);
    const dk = pbkdf2Sync("pw", salt, 2048, 32, "sha256");
    const cipher = createCipheriv("aes-128-ctr", dk.subarray(0, 16), iv);
    const ct = Buffer.concat([cipher.update(Buffer.from(KEY.slice(2), "hex")), cipher.final()]);
    const mac = keccak256(Buffer.concat([dk.subarray(16, 32), ct])).slice(2);
    const pbkdf2 = {
      ...scrypt,
      crypto: {
        cipher: "aes-128-ctr",
        cipherparams: { iv: iv.toString("hex") },
        ciphertext: ct.toString("hex"),
        kdf: "pbkdf2",
        kdfparams: { c: 2048, dklen: 32, prf: "hmac-sha256", salt: salt.toString("hex") },
        mac,
      },
    };
    expect(decryptKeystore(JSON.stringify(pbkdf2), "pw")).toBe(KEY);
    expect(() => decryptKeystore("not json", "pw")).toThrow(/not JSON/);
    expect(() => decryptKeystore(JSON.stringify({ ...scrypt, version: 1 }), "pw")).toThrow(
      /not a Web3 Secret Storage v3/,
    );
    const cbc = { ...pbkdf2, crypto: { ...pbkdf2.crypto, cipher: "aes-128-cbc" } };
    expect(() => decryptKeystore(JSON.stringify(cbc), "pw")).toThrow(/unsupported keystore cipher/);
  });
});
