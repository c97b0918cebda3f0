import { Command } from "commander";
import type { BudgetStatus } from "../../lib/pollers/budget.ts";
import { pollerStatus, type TargetPace } from "../../lib/pollers/status.ts";
import { printJson } from "../print.ts";
import { withDatabase } from "../with-database.ts";

const s = (x: number | null) => (x === null ? "-" : `${x} s`);

/** The venue's rate budget: use of this window, back-off, 429s, deferrals. */
function budgetLine(b: BudgetStatus): string {
  const pct = Math.round((100 * b.used) / b.limit);
  const blocked = b.blockedUntil ? `, backing off after a 429 until ${b.blockedUntil}` : "";
  return `${b.venue} rate budget: ${b.used}/${b.limit} weight in the last ${b.windowSeconds} s (${pct} %)${blocked}, ${b.rateLimited} 429(s) ever, ${b.deferred} poll(s) deferred ever`;
}

/** One target's pacing: effective period, age of its last full read, deferrals. */
function paceLine(t: TargetPace): string {
  const deferred = t.deferrals > 0 ? `, ${t.deferrals} deferred since` : "";
  return `${t.agentId} ${t.target}: period ${s(t.periodSeconds)}, fills/ledger read ${s(t.fullReadAgeSeconds)} ago${deferred}`;
}

/** `launchpad pollers status`: each off-chain poller's last success, lag and failing targets. */
export function pollersCommand(): Command {
  const status = new Command("status")
    .description(
      "print each poller's last success, lag, effective period, rate budget and failing targets",
    )
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) => {
      await withDatabase(async (sql) => {
        const all = await pollerStatus(sql);
        if (opts.json) return printJson(all);
        for (const p of all) {
          const lag = p.lagSeconds === null ? "never succeeded" : `lag ${p.lagSeconds} s`;
          const period =
            p.periodSeconds.median === null
              ? ""
              : `, period ${p.periodSeconds.median} s (slowest ${p.periodSeconds.max} s)`;
          process.stdout.write(
            `${p.poller}: ${p.targets} target(s), last success ${p.newestSuccessAt ?? "-"}, ${p.targets ? lag : "idle"}${period}, ${p.failing.length} failing\n`,
          );
          if (p.budget) process.stdout.write(`  ${budgetLine(p.budget)}\n`);
          for (const t of p.budget ? p.pace : []) process.stdout.write(`  ${paceLine(t)}\n`);
          for (const f of p.failing) {
            process.stdout.write(
              `  ${f.agentId} ${f.target}: ${f.failures} failure(s), last at ${f.at}: ${f.error}\n`,
            );
          }
        }
      });
    });
  return new Command("pollers").description("the off-chain pollers").addCommand(status);
}
