import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../lib/config.ts";
import { startBanner } from "./supervisor.ts";

// The start banner names every URL of the stack; the configured RPC and database URLs carry
// credentials (a provider's key in the path or query, the database's password): it shows their
// scheme, host and port only.

const dir = mkdtempSync(join(tmpdir(), "banner-"));
const KEY = "8f3a9c1d2b7e4f60a5c3d1e9b7f2a4c6";
const PASSWORD = "s3cret-db-pass";

describe("the start banner", () => {
  it("shows RPC and database URLs without their keys, password, user, path or query", () => {
    const config = loadConfig(
      {
        BSC_RPC_URL: `https://bsc-mainnet.nodereal.io/v1/${KEY},https://x.quiknode.pro/${KEY}/,https://rpc.example:8443/?apikey=${KEY}`,
        ARBITRUM_RPC_URL: `https://arb-mainnet.g.alchemy.com/v2/${KEY}`,
        DATABASE_URL: `postgres://launchpad_rw:${PASSWORD}@db.internal:5432/launchpad`,
      },
      dir,
    );
    const banner = startBanner(config, config.DATABASE_URL as string);
    expect(banner).not.toContain(KEY);
    expect(banner).not.toContain(PASSWORD);
    expect(banner).not.toContain("launchpad_rw");
    const row = (name: string) => banner.split("\n").find((l) => l.trim().startsWith(name));
    expect(row("RPC")).toBe(
      "  RPC        https://bsc-mainnet.nodereal.io/***, https://x.quiknode.pro/***, https://rpc.example:8443/***",
    );
    expect(row("Arbitrum")).toBe("  Arbitrum   https://arb-mainnet.g.alchemy.com/***");
    expect(row("Database")).toBe("  Database   postgres://***@db.internal:5432/***");
    // A URL with nothing to hide is shown whole.
    const plain = loadConfig({ BSC_RPC_URL: "https://bsc-dataseed.bnbchain.org" }, dir);
    const shown = startBanner(plain, "postgres://127.0.0.1:5432/postgres");
    expect(shown).toContain("  RPC        https://bsc-dataseed.bnbchain.org\n");
  });
});
