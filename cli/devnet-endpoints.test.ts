import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../lib/config.ts";
import { localEndpoints } from "./devnet-endpoints.ts";

// `launchpad devnet info --json`: every local endpoint beside the contracts, as the service's
// own configuration resolves it.

const dir = mkdtempSync(join(tmpdir(), "devnet-endpoints-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("localEndpoints", () => {
  it("lists each stand-in's base URL and the second chain's RPC and USDC", () => {
    mkdirSync(join(dir, "devnet"), { recursive: true });
    const usdc = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
    writeFileSync(
      join(dir, "devnet", "arbitrum.json"),
      JSON.stringify({
        chainId: 42161,
        rpcUrl: "http://127.0.0.1:9546",
        chainIdentity: `0x${"11".repeat(32)}`,
        deployedAtBlock: 1,
        usdc,
        bridge: "0x2df1c51e09aecf9cacb7bc98cb1742757f163df7",
      }),
    );
    const config = loadConfig(
      {
        LAUNCHPAD_DATA_DIR: dir,
        STEWARD_PORT: "9011",
        FOUR_MEME_API_PORT: "9012",
        X_PORT: "9013",
        HYPERLIQUID_PORT: "9014",
        SAFE_TX_SERVICE_PORT: "9015",
      },
      dir,
    );
    const e = localEndpoints(config);
    expect(e.services).toMatchObject({
      steward: "http://127.0.0.1:9011",
      x: { apiUrl: "http://127.0.0.1:9013", oauthUrl: "http://127.0.0.1:9013" },
      hyperliquid: "http://127.0.0.1:9014",
      safeTransactionService: "http://127.0.0.1:9015",
    });
    // The four.meme API's base as the service calls it (a path may follow the port).
    expect(e.services.fourMeme).toMatch(/^http:\/\/127\.0\.0\.1:9012(\/|$)/);
    expect(e.arbitrum).toMatchObject({
      chainId: 42161,
      rpcUrl: "http://127.0.0.1:9546",
      usdc: { address: usdc, decimals: 6 },
    });
    // URLs only: no credential of any stand-in.
    expect(JSON.stringify(e)).not.toMatch(/secret|apiKey|token/i);
  });

  it("shows a configured second chain's RPC without its key", () => {
    const key = "8f3a9c1d2b7e4f60a5c3d1e9b7f2a4c6";
    const config = loadConfig(
      {
        LAUNCHPAD_DATA_DIR: dir,
        ARBITRUM_RPC_URL: `https://arb-mainnet.g.alchemy.com/v2/${key}`,
      },
      dir,
    );
    const e = localEndpoints(config);
    expect(e.arbitrum?.rpcUrl).toBe("https://arb-mainnet.g.alchemy.com/***");
    expect(JSON.stringify(e)).not.toContain(key);
  });
});
