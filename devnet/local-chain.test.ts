import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loadConfig } from "../lib/config.ts";
import { freeListenPort } from "../lib/local/net.ts";
import { processRuns } from "../lib/local/pidfile.ts";
import { type StartLocalChainReturnType, startLocalChain } from "./local-chain.ts";

const started: StartLocalChainReturnType[] = [];
afterAll(async () => {
  for (const c of started) await c.stop().catch(() => {});
});

/** The BSC devnet's chain in a fresh data directory on `port`, as the supervisor starts it. */
function chainOn(port: number, dataDir = mkdtempSync(join(tmpdir(), "local-chain-"))) {
  const config = loadConfig({ LAUNCHPAD_DATA_DIR: dataDir, DEVNET_PORT: String(port) }, dataDir);
  const start = () =>
    startLocalChain({
      config,
      dir: join(dataDir, "devnet"),
      pidFile: "anvil.pid",
      portVariable: "DEVNET_PORT",
      log: () => {},
    });
  return { dataDir, start };
}

// A supervisor killed between spawning anvil and recording its pid leaves an anvil on the chain's
// own state file that no pid file names: the next start must stop it, not refuse the port.
it("stops an anvil on its own state file that no pid file names, and starts on the port", async () => {
  const { dataDir, start } = chainOn(await freeListenPort());
  const orphan = await start();
  started.push(orphan);
  const orphanPid = orphan.child.pid as number;
  rmSync(join(dataDir, "run", "anvil.pid"));

  const next = await start();
  started.push(next);
  expect(processRuns(orphanPid)).toBe(false);
  expect(next.child.pid).not.toBe(orphanPid);
  const res = await fetch(next.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
  });
  expect(((await res.json()) as { result: string }).result).toBe("0x38");
});

it("still refuses a port another program holds", async () => {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { start } = chainOn((server.address() as { port: number }).port);
  try {
    await expect(start()).rejects.toThrow(
      new RegExp(`already in use \\(LISTEN by pid ${process.pid}: `),
    );
  } finally {
    server.close();
  }
});
