import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, MAINNET } from "./config.ts";

const empty = mkdtempSync(join(tmpdir(), "cfg-"));

function fails(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env, empty);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("takes the first-buy cap as an exact BNB amount below the curve's raise", () => {
    expect(loadConfig({}, empty).firstBuyMaxWei).toBe(10n ** 17n);
    expect(
      loadConfig({ LAUNCH_FIRST_BUY_MAX_BNB: "0.000000000000000001" }, empty).firstBuyMaxWei,
    ).toBe(1n);
    expect(loadConfig({ LAUNCH_FIRST_BUY_MAX_BNB: "0" }, empty).firstBuyMaxWei).toBe(0n);
    for (const bad of ["-1", "0.1 BNB", "1e17", "0.0000000000000000001"]) {
      const error = fails({ LAUNCH_FIRST_BUY_MAX_BNB: bad });
      expect(error.variable).toBe("LAUNCH_FIRST_BUY_MAX_BNB");
      expect(error.message).toMatch(/amount of BNB/);
    }
    // The devnet's raise (18 BNB by default), and four.meme's 24 BNB on BSC.
    expect(fails({ LAUNCH_FIRST_BUY_MAX_BNB: "18" }).message).toMatch(
      /below the curve's raise of 18 BNB/,
    );
    expect(
      fails({ LAUNCH_FIRST_BUY_MAX_BNB: "24", BSC_RPC_URL: "https://bsc.example" }).message,
    ).toMatch(/raise of 24 BNB/);
    expect(
      loadConfig({ LAUNCH_FIRST_BUY_MAX_BNB: "23.5", BSC_RPC_URL: "https://bsc.example" }, empty)
        .firstBuyMaxWei,
    ).toBe(235n * 10n ** 17n);
  });

  it("takes trusted image origins in production only over https (the operator's own image host)", () => {
    const production = {
      LAUNCHPAD_ENV: "production",
      STEWARD_WEBHOOK_SECRET: "s".repeat(32),
      CLOUD_WEBHOOK_SECRET: "c".repeat(32),
      CODE_HOST_WEBHOOK_SECRET: "h".repeat(32),
      AGENT_EVENTS_WEBHOOK_SECRET: "a".repeat(32),
    };
    const https = loadConfig(
      { ...production, LAUNCH_IMAGE_TRUSTED_ORIGINS: "https://images.internal:8443" },
      empty,
    );
    expect(https.LAUNCH_IMAGE_TRUSTED_ORIGINS).toEqual(["https://images.internal:8443"]);
    const error = fails({
      ...production,
      LAUNCH_IMAGE_TRUSTED_ORIGINS: "https://images.internal,http://127.0.0.1:3012",
    });
    expect(error.variable).toBe("LAUNCH_IMAGE_TRUSTED_ORIGINS");
    expect(error.message).toMatch(/must be https origins in production/);
  });

  it("takes a fractional DEVNET_BLOCK_TIME (BSC's 0.45 s blocks)", () => {
    expect(loadConfig({ DEVNET_BLOCK_TIME: "0.45" }, empty).DEVNET_BLOCK_TIME).toBe(0.45);
    expect(loadConfig({ DEVNET_BLOCK_TIME: "0" }, empty).DEVNET_BLOCK_TIME).toBe(0);
  });

  it("defaults to the devnet, port 3001 and the data dir ./.launchpad", () => {
    const c = loadConfig({}, empty);
    expect(c.devnet).toBe(true);
    expect(c.PORT).toBe(3001);
    expect(c.DEVNET_PORT).toBe(8545);
    expect(c.DEVNET_BLOCK_TIME).toBe(1);
    expect(c.dataDir).toBe(join(empty, ".launchpad"));
    expect(c.rpcUrls).toEqual(["http://127.0.0.1:8545"]);
    expect(c.apiUrl).toBe("http://127.0.0.1:3001");
    expect(c.wsUrl).toBe("ws://127.0.0.1:3001/ws");
    expect(c.TOKEN_MANAGER_ADDRESS).toBe(MAINNET.tokenManager2);
  });

  it("rate limits default to the documented values; 0 turns one off; a negative or fractional one is refused", () => {
    const c = loadConfig({}, empty);
    expect([
      c.RATE_LIMIT_PER_MINUTE,
      c.RATE_LIMIT_AUTHENTICATED_PER_MINUTE,
      c.LAUNCH_RATE_LIMIT_PER_MINUTE,
    ]).toEqual([60, 600, 10]);
    const off = loadConfig(
      { RATE_LIMIT_PER_MINUTE: "0", LAUNCH_RATE_LIMIT_PER_MINUTE: "0" },
      empty,
    );
    expect(off.RATE_LIMIT_PER_MINUTE).toBe(0);
    expect(off.LAUNCH_RATE_LIMIT_PER_MINUTE).toBe(0);
    expect(fails({ RATE_LIMIT_PER_MINUTE: "-1" }).variable).toBe("RATE_LIMIT_PER_MINUTE");
    expect(fails({ RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "1.5" }).variable).toBe(
      "RATE_LIMIT_AUTHENTICATED_PER_MINUTE",
    );
  });

  it("the relayer's budget defaults to 0.5 BNB a day and 10 launches per client an hour; a malformed one is refused", () => {
    const c = loadConfig({}, empty);
    expect([c.RELAYER_BUDGET_BNB_PER_DAY, c.RELAYER_LAUNCHES_PER_CLIENT_PER_HOUR]).toEqual([
      "0.5",
      10,
    ]);
    expect(loadConfig({ RELAYER_BUDGET_BNB_PER_DAY: "0" }, empty).RELAYER_BUDGET_BNB_PER_DAY).toBe(
      "0",
    );
    for (const bad of ["-1", "1e3", "0.5 BNB", "0.1234567890123456789", "."])
      expect(fails({ RELAYER_BUDGET_BNB_PER_DAY: bad }).message).toMatch(
        /^RELAYER_BUDGET_BNB_PER_DAY: must be an amount of BNB/,
      );
    expect(fails({ RELAYER_LAUNCHES_PER_CLIENT_PER_HOUR: "2.5" }).variable).toBe(
      "RELAYER_LAUNCHES_PER_CLIENT_PER_HOUR",
    );
  });

  it("uses BSC when RPC URLs are configured, several of them comma-separated", () => {
    const c = loadConfig({ BSC_RPC_URL: "https://a.example/rpc, https://b.example/rpc" }, empty);
    expect(c.devnet).toBe(false);
    expect(c.rpcUrls).toEqual(["https://a.example/rpc", "https://b.example/rpc"]);
  });

  it("lowercases addresses", () => {
    const c = loadConfig(
      { TOKEN_MANAGER_ADDRESS: "0x5C952063c7fc8610FFDB798152D69F0B9550762B" },
      empty,
    );
    expect(c.TOKEN_MANAGER_ADDRESS).toBe("0x5c952063c7fc8610ffdb798152d69f0b9550762b");
  });

  it.each([
    ["TOKEN_MANAGER_ADDRESS", "0x1234", /20-byte hex address/],
    ["IDENTITY_REGISTRY_ADDRESS", "not-an-address", /20-byte hex address/],
    ["PAIR_INIT_CODE_HASH", "0xabc", /32-byte hex/],
    ["PORT", "70000", /between 1 and 65535/],
    ["PORT", "http", /port number/],
    ["DEVNET_PORT", "0", /between 1 and 65535/],
    ["DEVNET_BLOCK_TIME", "-1", /./],
    ["DEVNET_BLOCK_TIME", "fast", /must be a number/],
    ["DATABASE_URL", "mysql://x@y/z", /postgres:\/\//],
    ["BSC_RPC_URL", "ftp://node", /http\(s\) or ws\(s\)/],
    ["LAUNCHPAD_ENV", "staging", /./],
    ["VIEWS_SCHEMA", "Bad-Name", /SQL identifier/],
  ])("rejects %s=%s with a message naming it", (variable, value, message) => {
    const error = fails({ [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable}: `)).toBe(true);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain("\n");
  });

  it("reads .env, and the real environment wins over it", () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"));
    writeFileSync(join(dir, ".env"), "PORT=4000\nDEVNET_PORT=9999\n");
    const c = loadConfig({ PORT: "5000" }, dir);
    expect(c.PORT).toBe(5000);
    expect(c.DEVNET_PORT).toBe(9999);
  });

  it("treats an empty variable as unset", () => {
    expect(loadConfig({ DATABASE_URL: "", PORT: "" }, empty).PORT).toBe(3001);
  });
});
