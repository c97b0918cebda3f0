import { Command } from "commander";
import { loadConfig } from "../../lib/config.ts";
import { runSupervisor } from "../supervisor.ts";

export function startCommand(): Command {
  return new Command("start")
    .description(
      "run the whole service on this machine: Postgres (embedded unless DATABASE_URL), the devnet (unless BSC_RPC_URL), indexer, worker, API and the web app",
    )
    .action(async () => {
      await runSupervisor(loadConfig());
    });
}
