import type { PgBoss } from "pg-boss";
import type { Sql } from "../../lib/db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { POLICY_AUDIT } from "../limits.ts";
import { type AuditSources, runPolicyAudit } from "./auditor.ts";

/**
 * Schedules the policy auditor every six hours (pg-boss cron) and handles it. A run that
 * fails (the signer unreachable) finishes nothing, so the next one audits the same period.
 */
export async function startPolicyAuditWorker(p: {
  boss: PgBoss;
  sql: Sql;
  log: Logger;
  sources: AuditSources;
}): Promise<() => Promise<void>> {
  await p.boss.createQueue(POLICY_AUDIT.queue, { expireInSeconds: POLICY_AUDIT.expireSeconds });
  await p.boss.schedule(POLICY_AUDIT.queue, POLICY_AUDIT.cron, {}, { retryLimit: 0 });
  await p.boss.work(
    POLICY_AUDIT.queue,
    { pollingIntervalSeconds: POLICY_AUDIT.pollSeconds },
    async () => {
      const r = await runPolicyAudit({ sql: p.sql, sources: p.sources, now: new Date() });
      p.log.info(
        { runId: r.runId, checked: r.checked, anomalies: r.anomalies.length },
        "policy audit",
      );
    },
  );
  return async () => {
    await p.boss.offWork(POLICY_AUDIT.queue);
  };
}
