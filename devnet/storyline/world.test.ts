import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freeListenPort } from "../../lib/local/net.ts";
import { DEVNET_CHAIN_ID, type StartAnvilReturnType, startAnvil } from "../anvil.ts";
import type { DeploymentRecord } from "../record.ts";
import { storyWorld } from "./world.ts";

// what: A storyline call sent while anvil restarts (a 2 s outage) is retried until anvil is back, and its transaction lands once
// The devnet restarts anvil from its state file now and then (a 1-2 s outage, longer on a loaded
// machine). A storyline call sent into that gap is retried until anvil is back, and the
// transaction lands once: the restart test's storyline once failed on a reset connection.

describe("storyWorld across an anvil restart", () => {
  const dir = mkdtempSync(join(tmpdir(), "launchpad-world-"));
  let anvil: StartAnvilReturnType | undefined;
  afterAll(async () => {
    await anvil?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends through a 2 s outage of anvil and lands the transaction once", async () => {
    const port = await freeListenPort();
    const statePath = join(dir, "state.json");
    const start = () => startAnvil({ port, blockTime: 0, statePath });
    anvil = await start();
    // Only the chain id is read from the record by the world.
    const record = { chainId: DEVNET_CHAIN_ID } as DeploymentRecord;
    const world = storyWorld({ rpcUrl: anvil.rpcUrl, record, seed: 1 });
    const from = world.roles.deployer;
    const call = { to: from.address, data: "0x" as const, value: 1n, gas: 21_000n };
    await world.send(from, call);
    const before = await world.client.getTransactionCount({ address: from.address });

    await anvil.stop();
    const back = new Promise<StartAnvilReturnType>((resolve, reject) =>
      setTimeout(() => start().then(resolve, reject), 2_000),
    );
    const receipt = await world.send(from, call);
    anvil = await back;

    expect(receipt.status).toBe("success");
    expect(await world.client.getTransactionCount({ address: from.address })).toBe(before + 1);
  });
});
