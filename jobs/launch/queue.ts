import type { PgBoss } from "pg-boss";
import type { Sql } from "../../lib/db/client.ts";
import { LAUNCH_LIMITS } from "./limits.ts";

/**
 * Asks a worker to run (or resume) an agent's saga. Sending twice is harmless: the saga's
 * lease lets one run at a time and a finished saga ignores the job.
 *
 * @example
 * await enqueueSaga(boss, agentId);
 */
export async function enqueueSaga(boss: PgBoss, agentId: string): Promise<void> {
  await boss.send(LAUNCH_LIMITS.queue, { agentId }, { retryLimit: 0 });
}

/**
 * Running sagas whose lease lapsed (their worker died, or the job was never delivered),
 * picked once they have been idle for a moment.
 */
export async function orphanedSagas(sql: Sql): Promise<string[]> {
  const rows = await sql<{ agent_id: string }[]>`
    select agent_id from app.launch_sagas
    where status = 'running' and (lease_until is null or lease_until < now())
      and updated_at < now() - interval '2 seconds'
    limit 50`;
  return rows.map((r) => r.agent_id);
}
