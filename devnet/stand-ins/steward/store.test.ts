import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StewardStore } from "./store.ts";

const dir = mkdtempSync(join(tmpdir(), "steward-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the signer's store", () => {
  const master = randomBytes(32);
  const path = join(dir, "store.json");

  it("keeps wallets and Steward rules across a restart", () => {
    const s = new StewardStore(path, master);
    s.addWallet({ walletId: "w1", agentId: "a1", address: "0x01", key: s.seal("0xkey", "w1") });
    const rule = {
      id: "r1",
      type: "approved-addresses",
      enabled: true,
      config: { mode: "whitelist", addresses: [] },
    };
    s.setRules("w1", [rule]);
    const again = new StewardStore(path, master);
    expect(again.rules("w1")).toEqual([rule]);
    expect(again.unseal(again.wallet("w1") as never)).toBe("0xkey");
  });

  it("refuses to start on a store edited behind its back, or under another master key", () => {
    const file = JSON.parse(readFileSync(path, "utf8"));
    file.state.rules.w1[0].enabled = false;
    const tampered = join(dir, "tampered.json");
    writeFileSync(tampered, JSON.stringify(file));
    expect(() => new StewardStore(tampered, master)).toThrow(/integrity/);
    expect(() => new StewardStore(path, randomBytes(32))).toThrow(/integrity/);
  });

  it("a sealed key moved to another wallet does not open", () => {
    const s = new StewardStore(path, master);
    const moved = { ...(s.wallet("w1") as object), walletId: "w2" };
    expect(() => s.unseal(moved as never)).toThrow();
  });
});
