import { inspect } from "node:util";
import { Command } from "commander";
import { ConfigError, readDotEnv } from "../lib/config.ts";
import { secretUrlRedactor, secretUrlsOf } from "../lib/secret-urls.ts";

/**
 * Each command's module, loaded only when its command runs: every role of a stack is a process
 * of this CLI, and loading all of them (the API's routes, the worker's jobs, the web app, the
 * stand-ins) cost each process about 0.8 s of CPU at start, against 0.1 to 0.7 s for its own.
 * Help and an unknown command load them all.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  start: async () => (await import("./commands/start.ts")).startCommand(),
  api: async () => (await import("./commands/api.ts")).apiCommand(),
  worker: async () => (await import("./commands/worker.ts")).workerCommand(),
  indexer: async () => (await import("./commands/indexer.ts")).indexerCommand(),
  devnet: async () => (await import("./commands/devnet.ts")).devnetCommand(),
  deploy: async () => (await import("./commands/deploy.ts")).deployCommand(),
  reindex: async () => (await import("./commands/reindex.ts")).reindexCommand(),
  agents: async () => (await import("./commands/agents.ts")).agentsCommand(),
  keys: async () => (await import("./commands/agents.ts")).keysCommand(),
  mcp: async () => (await import("./commands/mcp.ts")).mcpCommand(),
  webhooks: async () => (await import("./commands/webhooks.ts")).webhooksCommand(),
  policies: async () => (await import("./commands/policies.ts")).policiesCommand(),
  pollers: async () => (await import("./commands/pollers.ts")).pollersCommand(),
  steward: async () => (await import("./commands/stand-ins.ts")).stewardCommand(),
  "four-meme": async () => (await import("./commands/stand-ins.ts")).fourMemeCommand(),
  x: async () => (await import("./commands/stand-ins.ts")).xCommand(),
  hyperliquid: async () => (await import("./commands/stand-ins.ts")).hyperliquidCommand(),
  web: async () => (await import("./commands/web.ts")).webCommand(),
  "safe-tx-service": async () => (await import("./commands/stand-ins.ts")).safeTxServiceCommand(),
};

/** Commands renamed, old -> new: the old name runs the new command, with a warning, until the
 * next release (a unit file or script written for it keeps working meanwhile). Not in help. */
const RENAMED_COMMANDS: Record<string, string> = { "launchpad-api": "four-meme" };

const old = process.argv[2];
if (old !== undefined && Object.hasOwn(RENAMED_COMMANDS, old)) {
  const name = RENAMED_COMMANDS[old] as string;
  console.error(
    `launchpad: the command ${old} is renamed ${name}; the old name goes in the next release`,
  );
  process.argv[2] = name;
}

const program = new Command("launchpad")
  .description("Agent launchpad service for BNB Smart Chain")
  .showHelpAfterError();
const asked = process.argv[2];
const load =
  asked !== undefined && Object.hasOwn(COMMANDS, asked) ? [asked] : Object.keys(COMMANDS);
for (const name of load) program.addCommand(await (COMMANDS[name] as () => Promise<Command>)());

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // What reaches here was not logged: an RPC error's message names its URL, key and all.
  const redact = secretUrlRedactor(secretUrlsOf({ ...readDotEnv(), ...process.env }));
  // Configuration problems are one line naming the variable; anything else keeps its stack.
  if (error instanceof ConfigError) {
    console.error(redact(`launchpad: ${error.message}`));
    process.exit(2);
  }
  console.error(redact(inspect(error)));
  process.exit(1);
}
