import { writeFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { type Config, ConfigError } from "../lib/config.ts";
import { isPortFree, portHolders, portSockets } from "../lib/local/net.ts";
import { killStale, stopProcess } from "../lib/local/pidfile.ts";
import {
  type StartAnvilReturnType,
  startAnvil,
  testAnvilHistory,
  testAnvilShedBytes,
} from "./anvil.ts";
import { exitDumpPath } from "./state-file.ts";

export type StartLocalChainParameters = {
  config: Config;
  /** The chain's folder in the data directory, which holds its `state.json`. */
  dir: string;
  /** Its pid file in `<dataDir>/run`. */
  pidFile: string;
  /** The variable that sets its port, named when the port is taken. */
  portVariable: "DEVNET_PORT" | "ARBITRUM_DEVNET_PORT";
  chainId?: number;
  log: (line: string) => void;
};

export type StartLocalChainReturnType = StartAnvilReturnType & {
  statePath: string;
  /** Stops anvil (it writes its state file) and removes its pid file. */
  stop: () => Promise<void>;
};

/**
 * Starts one of the devnet's chains on its state file in the data directory: an anvil left
 * behind by a supervisor killed with SIGKILL is stopped first (it holds the port and the
 * state), a port someone else holds is a configuration error, and the pid file names the
 * current anvil across its restarts.
 *
 * @example
 * const chain = await startLocalChain({ config, dir, pidFile: "anvil.pid", portVariable: "DEVNET_PORT", log });
 */
export async function startLocalChain(
  p: StartLocalChainParameters,
): Promise<StartLocalChainReturnType> {
  const { config } = p;
  const pidPath = join(config.dataDir, "run", p.pidFile);
  await mkdir(p.dir, { recursive: true });
  await mkdir(join(config.dataDir, "run"), { recursive: true });
  await killStale(pidPath, "anvil");
  const port = config[p.portVariable];
  // An anvil on this chain's own state files that its pid file does not name (a supervisor
  // killed between spawning one and recording it) is as stale: stopped the same way.
  if (!(await isPortFree(port, config.DEVNET_HOST))) {
    const ours = `--dump-state ${exitDumpPath(join(p.dir, "state.json"))}`;
    for (const s of await portSockets(port)) {
      if (s.pid && s.state === "LISTEN" && s.cmdline?.includes(ours)) {
        await stopProcess(s.pid, "anvil");
      }
    }
  }
  if (!(await isPortFree(port, config.DEVNET_HOST))) {
    throw new ConfigError(
      p.portVariable,
      `${config.DEVNET_HOST}:${port} is already in use${await portHolders(port)}`,
    );
  }
  const statePath = join(p.dir, "state.json");
  const anvil = await startAnvil({
    host: config.DEVNET_HOST,
    port,
    chainId: p.chainId,
    blockTime: config.DEVNET_BLOCK_TIME,
    statePath,
    onLine: p.log,
    restartAboveShedBytes: testAnvilShedBytes(config),
    historyStates: testAnvilHistory(config),
    // Anvil restarts now and then (DEVNET_LIMITS.restartAboveShedBytes): the file names the
    // current one, for the next start to stop if this supervisor dies.
    onSpawn: (pid) => writeFileSync(pidPath, String(pid)),
  });
  return {
    get child() {
      return anvil.child;
    },
    rpcUrl: anvil.rpcUrl,
    fresh: anvil.fresh,
    statePath,
    stop: async () => {
      await anvil.stop();
      await rm(pidPath, { force: true });
    },
  };
}
