import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartAnvilReturnType, startAnvil } from "../../devnet/anvil.ts";
import { blockIsGone } from "../../lib/indexer/sync-gaps.ts";
import { freePort } from "../../lib/local/net.ts";

// Whether a block Ponder asks for is gone, told against a real anvil that dropped one.

const HASH = "0x449067fdcd94bd4bd1d77516712ea7e94301c22dbaed5791e37f57a157332628";

describe("blockIsGone", () => {
  let anvil: StartAnvilReturnType;
  beforeAll(async () => {
    anvil = await startAnvil({ port: await freePort(), blockTime: 0 });
  });
  afterAll(async () => anvil?.stop());

  const rpc = async (method: string, params: unknown[] = []) => {
    const res = await fetch(anvil.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return ((await res.json()) as { result: unknown }).result;
  };
  const hashOf = async (n: number) =>
    ((await rpc("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as { hash: `0x${string}` })
      .hash;

  it("tells a block the chain dropped from one it still has, by hash and by number", async () => {
    await rpc("anvil_mine", ["0x3"]);
    const kept = await hashOf(3);
    const snapshot = await rpc("evm_snapshot");
    await rpc("anvil_mine", ["0x2"]);
    const dropped = await hashOf(5);
    await rpc("evm_revert", [snapshot]); // block 5 and its hash are gone, as after a reorg
    expect(await blockIsGone(anvil.rpcUrl, dropped)).toBe(true);
    expect(await blockIsGone(anvil.rpcUrl, kept)).toBe(false);
    expect(await blockIsGone(anvil.rpcUrl, 2)).toBe(false);
    // A block still to come is not gone.
    expect(await blockIsGone(anvil.rpcUrl, 9)).toBe(false);
  });

  it("does not call a block gone when the chain does not answer", async () => {
    expect(await blockIsGone("http://127.0.0.1:9", HASH)).toBe(false);
    expect(await blockIsGone("http://127.0.0.1:9", 2)).toBe(false);
  });
});
