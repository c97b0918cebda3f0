import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { actionHash, type L1Action, recoverL1Signer, signL1Action, toWire } from "./protocol.ts";

// Vectors of Hyperliquid's own Python SDK (tests/signing_test.py), checked against the TS SDK's
// signing this module now wraps: if the msgpack encoding,
// the key order or the nonce bytes were wrong, the venue would recover another address.
const SDK_KEY = "0x0123456789012345678901234567890123456789012345678901234567890123";
const order = {
  type: "order",
  orders: [{ a: 4, b: true, p: "1670.1", s: "0.0147", r: false, t: { limit: { tif: "Ioc" } } }],
  grouping: "na",
} as L1Action;
const dummy = { type: "dummy", num: 100_000_000_000 } as unknown as L1Action;

describe("Hyperliquid L1 signing", () => {
  it("hashes the SDK's order action to the production connectionId", () => {
    expect(actionHash(order, 1677777606040, null)).toBe(
      "0x0fcbeda5ae3c4950a548021552a4fea2226858c4453571bf3f24ba017eac2908",
    );
  });

  it("signs the SDK's dummy action as the SDK does, on mainnet and testnet", async () => {
    const account = privateKeyToAccount(SDK_KEY);
    const main = await signL1Action({ account, action: dummy, nonce: 0, isMainnet: true });
    expect(BigInt(main.signature.r)).toBe(
      0x53749d5b30552aeb2fca34b530185976545bb22d0b3ce6f62e31be961a59298n,
    );
    expect(BigInt(main.signature.s)).toBe(
      0x755c40ba9bf05223521753995abb2f73ab3229be8ec921f350cb447e384d8ed8n,
    );
    expect(main.signature.v).toBe(27);
    const test = await signL1Action({ account, action: dummy, nonce: 0, isMainnet: false });
    expect(BigInt(test.signature.r)).toBe(
      0x542af61ef1f429707e3c76c5293c80d01f74ef853e34b76efffcb57e574f9510n,
    );
    expect(test.signature.v).toBe(28);
    expect(await recoverL1Signer(main, true)).toBe(account.address.toLowerCase());
    // The same signature read for the other network names someone else.
    expect(await recoverL1Signer(main, false)).not.toBe(account.address.toLowerCase());
  });

  it("changes the hash with the vault, the expiry and the key order", () => {
    const base = actionHash(order, 1, null);
    expect(actionHash(order, 1, "0x1719884eb866cb12b2287399b15f7db5e7d775ea")).not.toBe(base);
    expect(actionHash(order, 1, null, 2)).not.toBe(base);
    const reordered = {
      grouping: "na",
      type: "order",
      orders: (order as { orders: unknown }).orders,
    };
    expect(actionHash(reordered as L1Action, 1, null)).not.toBe(base);
  });

  it("writes prices the venue's way", () => {
    expect(toWire(1670.1)).toBe("1670.1");
    expect(toWire(0.000000001)).toBe("0");
    expect(toWire(65000)).toBe("65000");
  });
});
