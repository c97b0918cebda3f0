import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deriveKey, seal, unseal } from "./seal.ts";

// What opens a sealed secret: only the whole value under its key and context. Node's GCM
// decipher takes a tag of 4 to 16 bytes unless told its length, and checks only the bytes it
// was given: a tag cut short is a forgery 2^96 times cheaper (4 bytes: one in 2^32).

const key = deriveKey(randomBytes(32), "seal test");

describe("unseal", () => {
  it("refuses a tag cut short (4, 8, 12 or 15 bytes), as it refuses a wrong one", () => {
    const sealed = seal(key, "a four.meme access token", "0xwallet");
    expect(unseal(key, sealed, "0xwallet")).toBe("a four.meme access token");
    for (const bytes of [4, 8, 12, 15]) {
      const cut = { ...sealed, tag: sealed.tag.slice(0, bytes * 2) };
      expect(() => unseal(key, cut, "0xwallet"), `${bytes}-byte tag`).toThrow(/authentication tag/);
    }
  });
});
