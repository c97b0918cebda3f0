import { Command, InvalidArgumentError } from "commander";
import { loadConfig } from "../../lib/config.ts";
import { createLogger } from "../../lib/logger.ts";
import { secretUrlsOf } from "../../lib/secret-urls.ts";
import { resolveWebhookSecrets } from "../../lib/webhooks/inbound/webhook-secrets.ts";
import { onShutdown } from "../lifecycle.ts";

export function devnetCommand(): Command {
  const devnet = new Command("devnet")
    .description("run the local BSC devnet (anvil, chain id 56) with the service's contracts")
    .action(async () => {
      const config = loadConfig();
      const log = createLogger("devnet", config.LOG_LEVEL, { secretUrls: secretUrlsOf(config) });
      const { runDevnet } = await import("../../devnet/run.ts");
      const { deploymentRecordPath } = await import("../../devnet/record.ts");
      const chain = await runDevnet({ config, log: (line) => log.info(line) });
      log.info(
        { rpcUrl: chain.rpcUrl, fresh: chain.fresh, record: deploymentRecordPath(config.dataDir) },
        "devnet ready",
      );
      onShutdown(log, chain.stop);
    });

  devnet
    .command("info")
    .description(`print the devnet's deployment record (<data dir>/devnet/deployment.json)`)
    .option("--json", "print the record as JSON")
    .action(async (opts: { json?: boolean }) => {
      const config = loadConfig();
      const { deploymentRecordPath, readDeploymentRecord } = await import("../../devnet/record.ts");
      const { SAMPLE_PATHS } = await import("../../devnet/stand-ins/four-meme/sample-image.ts");
      const record = readDeploymentRecord(config.dataDir);
      if (!record) {
        const path = deploymentRecordPath(config.dataDir);
        throw new Error(
          `no deployment record at ${path}: start the devnet first (launchpad start)`,
        );
      }
      if (opts.json) {
        // sampleImageUrl: an image the local launchpad stand-in hosts, for a first launch.
        const sampleImageUrl = config.FOUR_MEME_API_URL
          ? undefined
          : `http://127.0.0.1:${config.FOUR_MEME_API_PORT}${SAMPLE_PATHS.image}`;
        // webhookSecrets: what a local sender signs inbound webhooks with (generated locally).
        const webhookSecrets = resolveWebhookSecrets(config);
        const { localEndpoints } = await import("../devnet-endpoints.ts");
        const local = localEndpoints(config);
        process.stdout.write(
          `${JSON.stringify({ ...record, sampleImageUrl, webhookSecrets, ...local }, null, 2)}\n`,
        );
        return;
      }
      process.stdout.write(`chain ${record.chainId} at ${record.rpcUrl}\n`);
      for (const [name, address] of Object.entries(record.contracts)) {
        process.stdout.write(`  ${name.padEnd(22)} ${address}\n`);
      }
    });

  devnet
    .command("seed")
    .description(
      "create sample activity on the running stack: tokens, trades, a graduation, deposit launches, and one agent with perps fills, a Safe transaction, posts and a USDC deposit from Arbitrum",
    )
    .option("--tokens <n>", "tokens to create", positiveInt, 5)
    .option("--trades <n>", "curve trades to make", positiveInt, 100)
    .action(async (opts: { tokens: number; trades: number }) => {
      const config = loadConfig();
      const { seedDevnet } = await import("../../devnet/seed.ts");
      const { seedServices } = await import("../seed-services.ts");
      const log = (line: string) => process.stdout.write(`${line}\n`);
      const seeded = await seedDevnet({
        rpcUrl: config.rpcUrls[0] as string,
        dataDir: config.dataDir,
        tokens: opts.tokens,
        trades: opts.trades,
        log,
        services: seedServices(config),
      });
      if (seeded.agent)
        log(`the seeded agent's page: ${config.WEB_URL}/agent/${seeded.agent.token}`);
    });
  return devnet;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a positive integer");
  return n;
}
