import { writeFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { parseEther } from "viem";
import { type Config, ConfigError } from "../lib/config.ts";
import { isPortFree } from "../lib/net.ts";
import { killStale } from "../lib/pidfile.ts";
import { startAnvil, testAnvilShedBytes } from "./anvil.ts";
import { type RunArbitrumDevnetReturnType, runArbitrumDevnet } from "./arbitrum.ts";
import { deployDevnet } from "./deploy.ts";
import type { DeploymentRecord } from "./record.ts";
import { dumpState } from "./state-file.ts";

export type RunDevnetParameters = { config: Config; log: (line: string) => void };
export type RunDevnetReturnType = {
  rpcUrl: string;
  fresh: boolean;
  record: DeploymentRecord;
  /** The second local chain (Arbitrum, chain id 42161) with its USDC stand-in. */
  arbitrum: RunArbitrumDevnetReturnType;
  stop: () => Promise<void>;
};

/**
 * Starts the local chain for a data directory (its state kept in `<dataDir>/devnet/state.json`)
 * and makes sure the service's contract set is deployed on it.
 */
export async function runDevnet(p: RunDevnetParameters): Promise<RunDevnetReturnType> {
  const { config } = p;
  const dir = join(config.dataDir, "devnet");
  const pidPath = join(config.dataDir, "run", "anvil.pid");
  await mkdir(dir, { recursive: true });
  await mkdir(join(config.dataDir, "run"), { recursive: true });
  // An anvil left behind by a supervisor killed with SIGKILL holds the port and the state.
  await killStale(pidPath, "anvil");
  if (!(await isPortFree(config.DEVNET_PORT, config.DEVNET_HOST))) {
    throw new ConfigError(
      "DEVNET_PORT",
      `${config.DEVNET_HOST}:${config.DEVNET_PORT} is already in use`,
    );
  }
  const statePath = join(dir, "state.json");
  const anvil = await startAnvil({
    host: config.DEVNET_HOST,
    port: config.DEVNET_PORT,
    blockTime: config.DEVNET_BLOCK_TIME,
    statePath,
    onLine: p.log,
    restartAboveShedBytes: testAnvilShedBytes(config),
    // Anvil restarts now and then (DEVNET_LIMITS.restartAboveShedBytes): the file names the
    // current one, for the next start to stop if this supervisor dies.
    onSpawn: (pid) => writeFileSync(pidPath, String(pid)),
  });
  let arbitrum: RunArbitrumDevnetReturnType | undefined;
  try {
    const record = await deployDevnet({
      rpcUrl: anvil.rpcUrl,
      dataDir: config.dataDir,
      maxRaisingWei: parseEther(String(config.DEVNET_MAX_RAISING_BNB)),
      log: p.log,
    });
    // The deployment is on disk before anyone uses it, not only at the first periodic dump.
    await dumpState(anvil.rpcUrl, statePath);
    arbitrum = await runArbitrumDevnet({ config, log: p.log });
    const second = arbitrum;
    return {
      rpcUrl: anvil.rpcUrl,
      fresh: anvil.fresh,
      record,
      arbitrum: second,
      stop: async () => {
        await Promise.all([anvil.stop(), second.stop()]);
        await rm(pidPath, { force: true });
      },
    };
  } catch (error) {
    await arbitrum?.stop();
    await anvil.stop();
    throw error;
  }
}
