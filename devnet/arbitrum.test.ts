import { describe, expect, it } from "vitest";
import { arbitrumEnv } from "./arbitrum.ts";

// The devnet hands its Arbitrum chain to the roles as an operator configures Arbitrum One.
describe("arbitrumEnv", () => {
  const record = {
    rpcUrl: "http://127.0.0.1:8546",
    usdc: `0x${"a".repeat(40)}`,
    bridge: `0x${"b".repeat(40)}`,
    deployedAtBlock: 3,
  } as Parameters<typeof arbitrumEnv>[0];

  it("names the chain's WebSocket when it mines on its own, and none on automine", () => {
    expect(arbitrumEnv(record, { DEVNET_BLOCK_TIME: 1 }).ARBITRUM_WS_URL).toBe(
      "ws://127.0.0.1:8546",
    );
    // On automine a head comes only with a transaction: the indexer polls there.
    expect(arbitrumEnv(record, { DEVNET_BLOCK_TIME: 0 })).not.toHaveProperty("ARBITRUM_WS_URL");
  });
});
