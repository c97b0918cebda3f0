import { Command } from "commander";
import { loadConfig, requirePublicBaseUrl } from "../../lib/config.ts";
import { runSupervisor } from "../supervisor.ts";

export function startCommand(): Command {
  return new Command("start")
    .description(
      "run the whole service on this machine: Postgres (embedded unless DATABASE_URL), the devnet (unless BSC_RPC_URL), indexer, worker, API and the web app",
    )
    .action(async () => {
      const config = loadConfig();
      // Checked before anything starts, not by each role after Postgres and the devnet are up.
      requirePublicBaseUrl(config, "the worker writes it into each agent's on-chain identity URI");
      await runSupervisor(config);
    });
}
