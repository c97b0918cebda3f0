import { Command } from "commander";
import { createSql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import { pollerStatus } from "../../lib/pollers/status.ts";
import { loadServiceConfig } from "../config.ts";

/** `launchpad pollers status`: each off-chain poller's last success, lag and failing targets. */
export function pollersCommand(): Command {
  const status = new Command("status")
    .description("print each poller's last success, lag and the targets failing now")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) => {
      const config = await loadServiceConfig();
      const sql = createSql(resolveDatabaseUrl(config), { max: 1 });
      try {
        await migrate(sql);
        const all = await pollerStatus(sql);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
          return;
        }
        for (const p of all) {
          const lag = p.lagSeconds === null ? "never succeeded" : `lag ${p.lagSeconds} s`;
          process.stdout.write(
            `${p.poller}: ${p.targets} target(s), last success ${p.newestSuccessAt ?? "-"}, ${p.targets ? lag : "idle"}, ${p.failing.length} failing\n`,
          );
          for (const f of p.failing) {
            process.stdout.write(
              `  ${f.agentId} ${f.target}: ${f.failures} failure(s), last at ${f.at}: ${f.error}\n`,
            );
          }
        }
      } finally {
        await sql.end({ timeout: 1 });
      }
    });
  return new Command("pollers").description("the off-chain pollers").addCommand(status);
}
