import { Command } from "commander";
import { ConfigError } from "../lib/config.ts";
import { agentsCommand, keysCommand } from "./commands/agents.ts";
import { apiCommand } from "./commands/api.ts";
import { devnetCommand } from "./commands/devnet.ts";
import { indexerCommand } from "./commands/indexer.ts";
import { mcpCommand } from "./commands/mcp.ts";
import { policiesCommand } from "./commands/policies.ts";
import { pollersCommand } from "./commands/pollers.ts";
import { reindexCommand } from "./commands/reindex.ts";
import {
  hyperliquidCommand,
  launchpadApiCommand,
  safeTxServiceCommand,
  stewardCommand,
  xCommand,
} from "./commands/stand-ins.ts";
import { startCommand } from "./commands/start.ts";
import { webCommand } from "./commands/web.ts";
import { webhooksCommand } from "./commands/webhooks.ts";
import { workerCommand } from "./commands/worker.ts";

const program = new Command("launchpad")
  .description("Agent launchpad service for BNB Smart Chain")
  .showHelpAfterError()
  .addCommand(startCommand())
  .addCommand(apiCommand())
  .addCommand(workerCommand())
  .addCommand(indexerCommand())
  .addCommand(devnetCommand())
  .addCommand(reindexCommand())
  .addCommand(agentsCommand())
  .addCommand(keysCommand())
  .addCommand(mcpCommand())
  .addCommand(webhooksCommand())
  .addCommand(policiesCommand())
  .addCommand(pollersCommand())
  .addCommand(stewardCommand())
  .addCommand(launchpadApiCommand())
  .addCommand(xCommand())
  .addCommand(hyperliquidCommand())
  .addCommand(webCommand())
  .addCommand(safeTxServiceCommand());

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Configuration problems are one line naming the variable; anything else keeps its stack.
  if (error instanceof ConfigError) {
    console.error(`launchpad: ${error.message}`);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
}
