import { join } from "node:path";
import { parseEther } from "viem";
import type { Config } from "../lib/config.ts";
import { type RunArbitrumDevnetReturnType, runArbitrumDevnet } from "./arbitrum.ts";
import { deployDevnet } from "./deploy.ts";
import { startLocalChain } from "./local-chain.ts";
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
  // The two chains share nothing: BSC's and Arbitrum's start (and deployments) run at once.
  const bsc = async () => {
    const anvil = await startLocalChain({
      config,
      dir: join(config.dataDir, "devnet"),
      pidFile: "anvil.pid",
      portVariable: "DEVNET_PORT",
      log: p.log,
    });
    try {
      const record = await deployDevnet({
        rpcUrl: anvil.rpcUrl,
        dataDir: config.dataDir,
        maxRaisingWei: parseEther(String(config.DEVNET_MAX_RAISING_BNB)),
        log: p.log,
      });
      // The deployment is on disk before anyone uses it, not only at the first periodic dump.
      await dumpState(anvil.rpcUrl, anvil.statePath);
      return { anvil, record };
    } catch (error) {
      await anvil.stop();
      throw error;
    }
  };
  const [main, second] = await Promise.allSettled([
    bsc(),
    runArbitrumDevnet({ config, log: p.log }),
  ]);
  if (main.status === "rejected" || second.status === "rejected") {
    // The one that came up is stopped; the first failure is the one reported.
    if (main.status === "fulfilled") await main.value.anvil.stop();
    if (second.status === "fulfilled") await second.value.stop();
    throw main.status === "rejected" ? main.reason : (second as PromiseRejectedResult).reason;
  }
  const { anvil, record } = main.value;
  const arbitrum = second.value;
  return {
    rpcUrl: anvil.rpcUrl,
    fresh: anvil.fresh,
    record,
    arbitrum,
    stop: async () => {
      await Promise.all([anvil.stop(), arbitrum.stop()]);
    },
  };
}
