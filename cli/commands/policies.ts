import { Command, InvalidArgumentError } from "commander";
import { runPolicyAudit } from "../../jobs/policy/auditor.ts";
import { policyAuditSources } from "../../jobs/policy/sources.ts";
import type { Config } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import { type AnomalyPanelRow, listAnomalies } from "../../lib/policy/anomalies.ts";
import { printJson, printRows } from "../print.ts";
import { withDatabase } from "../with-database.ts";

const withDb = <T>(fn: (sql: Sql, config: Config) => Promise<T>) => withDatabase(fn, { max: 2 });

const positive = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new InvalidArgumentError("1 to 1000");
  return n;
};
const isoTime = (v: string) => {
  const t = new Date(v);
  if (Number.isNaN(t.getTime())) throw new InvalidArgumentError("an ISO 8601 time");
  return t;
};

/** The event an anomaly is about, as the API names it; `-` for a finding in the venue's record. */
const eventOf = (a: AnomalyPanelRow) =>
  a.eventId ? `event #${a.eventId} ${a.eventKind ?? "(deleted)"}` : "event -";

/** `launchpad policies audit|anomalies`: the policy auditor on demand and the anomaly panel. */
export function policiesCommand(): Command {
  const policies = new Command("policies").description("trading policies (operators)");
  policies
    .command("audit")
    .description("run the policy auditor now (the worker runs it every six hours)")
    .option(
      "--since <iso>",
      "audit events ingested from this time (default: the last run's end)",
      isoTime,
    )
    .option("--json", "print JSON")
    .action(async (o: { since?: Date; json?: boolean }) => {
      const r = await withDb((sql, config) =>
        runPolicyAudit({
          sql,
          sources: policyAuditSources(config, sql),
          now: new Date(),
          since: o.since,
        }),
      );
      if (o.json) return printJson(r);
      process.stdout.write(
        `run ${r.runId}: ${r.checked} applied events checked, ${r.anomalies.length} new anomalies\n`,
      );
      for (const a of r.anomalies) {
        process.stdout.write(
          `#${a.id} ${a.severity} ${a.agentId} ${a.rule}: expected ${a.expected}, got ${a.actual}\n`,
        );
      }
    });
  policies
    .command("anomalies")
    .description("the anomaly panel: stored anomalies, newest first")
    .option("--limit <n>", "rows to show (1-1000)", positive, 100)
    .option("--agent <agentId>", "only this agent")
    .option("--json", "print JSON")
    .action(async (o: { limit: number; agent?: string; json?: boolean }) => {
      const rows = await withDb((sql) => listAnomalies(sql, { limit: o.limit, agentId: o.agent }));
      printRows(rows, {
        json: o.json,
        none: "no anomalies",
        line: (a) =>
          `#${a.id} ${a.detectedAt.toISOString()} ${a.severity} ${a.agentId} ${a.rule}: expected ${a.expected}, got ${a.actual} (policy ${a.policyId ?? "?"} v${a.policyVersion ?? "?"}) ${eventOf(a)}`,
      });
    });
  return policies;
}
