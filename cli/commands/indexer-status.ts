import { Command } from "commander";
import { resolveArbitrum } from "../../lib/arbitrum.ts";
import { resolveChain } from "../../lib/chain.ts";
import { liveDeployment } from "../../lib/indexer/deployment.ts";
import { readFreshness } from "../../lib/indexer/lag.ts";
import { readIndexerStatus } from "../../lib/indexer/status.ts";
import { printJson } from "../print.ts";
import { withDatabase } from "../with-database.ts";

export function statusCommand(): Command {
  return new Command("status")
    .description("print the live indexer's progress: indexed block, head, lag, backfill done")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) => {
      await withDatabase(async (sql, config) => {
        const { schema } = await liveDeployment(sql);
        const rpcUrl = resolveChain(config).rpcUrls[0] as string;
        const arbitrum = resolveArbitrum(config);
        const otherRpcUrls = arbitrum ? { [arbitrum.chainId]: arbitrum.rpcUrl } : undefined;
        const read = await readIndexerStatus({ sql, schema, rpcUrl, otherRpcUrls });
        // Lag in seconds by the wall clock and `stale` past the threshold (lib/indexer/lag.ts).
        const chains = await Promise.all(
          read.chains.map(async (c) => {
            const f = await readFreshness({ sql, lagBlocks: c.lagBlocks });
            return { ...c, lagSeconds: f.lagSeconds, stale: f.stale };
          }),
        );
        const status = { ...read, stale: chains.some((c) => c.stale), chains };
        if (opts.json) return printJson(status);
        process.stdout.write(`deployment ${status.schema}\n`);
        if (status.chains.length === 0) process.stdout.write("  not started yet\n");
        for (const c of status.chains) {
          process.stdout.write(
            `  ${c.chain} (${c.chainId}): block ${c.indexedBlock} of ${c.headBlock ?? "?"}, lag ${c.lagBlocks ?? "?"} blocks / ${c.lagSeconds ?? "?"} s, ${c.ready ? "live" : "backfilling"}${c.stale ? ", STALE" : ""}\n`,
          );
        }
      });
    });
}
