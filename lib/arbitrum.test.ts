import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ARBITRUM_USDC, HYPERLIQUID_BRIDGE2, resolveArbitrum } from "./arbitrum.ts";
import { ConfigError, loadConfig } from "./config.ts";

const empty = mkdtempSync(join(tmpdir(), "cfg-arb-"));
const BSC = { BSC_RPC_URL: "https://bsc.example", SERVICE_REGISTRY_ADDRESS: `0x${"1".repeat(40)}` };
const secrets = {
  STEWARD_WEBHOOK_SECRET: "s".repeat(32),
  CLOUD_WEBHOOK_SECRET: "c".repeat(32),
  CODE_HOST_WEBHOOK_SECRET: "h".repeat(32),
  AGENT_EVENTS_WEBHOOK_SECRET: "a".repeat(32),
};

describe("resolveArbitrum", () => {
  it("is off with BSC configured and ARBITRUM_RPC_URL unset: the indexer runs BSC only", () => {
    expect(resolveArbitrum(loadConfig({ ...BSC }, empty))).toBeUndefined();
  });

  it("follows Arbitrum One's native USDC and Hyperliquid's Bridge2 unless told otherwise", () => {
    const a = resolveArbitrum(
      loadConfig(
        { ...BSC, ARBITRUM_RPC_URL: "https://arb.example", ARBITRUM_START_BLOCK: "9" },
        empty,
      ),
    );
    expect(a).toEqual({
      chainId: 42161,
      rpcUrl: "https://arb.example",
      wsUrl: undefined,
      devnet: false,
      usdc: ARBITRUM_USDC,
      bridge: HYPERLIQUID_BRIDGE2,
      startBlock: 9,
    });
  });

  it("refuses Arbitrum from genesis in production: ARBITRUM_START_BLOCK is required", () => {
    const config = loadConfig(
      { ...BSC, ...secrets, LAUNCHPAD_ENV: "production", ARBITRUM_RPC_URL: "https://arb.example" },
      empty,
    );
    expect(() => resolveArbitrum(config)).toThrow(ConfigError);
    expect(() => resolveArbitrum(config)).toThrow(/ARBITRUM_START_BLOCK/);
  });

  it("subscribes to new heads at ARBITRUM_WS_URL, which must be a WebSocket URL", () => {
    const env = { ...BSC, ARBITRUM_RPC_URL: "https://arb.example", ARBITRUM_START_BLOCK: "9" };
    const a = resolveArbitrum(
      loadConfig({ ...env, ARBITRUM_WS_URL: "wss://arb.example/ws" }, empty),
    );
    expect(a?.wsUrl).toBe("wss://arb.example/ws");
    expect(() => loadConfig({ ...env, ARBITRUM_WS_URL: "https://arb.example" }, empty)).toThrow(
      /ARBITRUM_WS_URL: must be a ws:\/\/ or wss:\/\/ URL/,
    );
  });
});
