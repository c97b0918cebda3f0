import { Command } from "commander";
import { failedWebhooks, retryWebhook } from "../../jobs/events/consumer.ts";
import { printRows } from "../print.ts";
import { withDatabase } from "../with-database.ts";

/** `launchpad webhooks failed [--json]` and `launchpad webhooks retry <id>` (operators). */
export function webhooksCommand(): Command {
  const webhooks = new Command("webhooks").description("inbound webhook inbox (operators)");
  webhooks
    .command("failed")
    .description("list inbox rows the consumer gave up on (dead letter), newest first")
    .option("--limit <n>", "rows to show", "100")
    .option("--json", "print JSON")
    .action(async (o: { limit: string; json?: boolean }) => {
      const rows = await withDatabase((sql) =>
        failedWebhooks(sql, Math.max(1, Number(o.limit) || 100)),
      );
      printRows(rows, {
        json: o.json,
        none: "no failed webhooks",
        line: (r) =>
          `#${r.id} ${r.failedAt.toISOString()} ${r.source} ${r.eventType} ${r.sourceEventId} (${r.attempts} attempts): ${r.lastError ?? ""}`,
      });
    });
  webhooks
    .command("retry")
    .description("put a failed inbox row back in the queue (after fixing its cause)")
    .argument("<id>", "inbox row id, as `webhooks failed` prints it")
    .action(async (id: string) => {
      if (!/^\d{1,19}$/.test(id)) throw new Error("<id> must be an inbox row id (digits)");
      const done = await withDatabase((sql) => retryWebhook(sql, id));
      process.stdout.write(done ? `#${id} queued again\n` : `#${id} is not a failed inbox row\n`);
      if (!done) process.exitCode = 1;
    });
  return webhooks;
}
