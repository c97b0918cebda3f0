import { PgBoss } from "pg-boss";
import type { Sql } from "../../lib/db/client.ts";
import { JOB_LIMITS, LAUNCH_LIMITS } from "../limits.ts";

/**
 * The launch queue's producer side: the one module of jobs/ the API may import. It sends saga
 * jobs and names the saga row the API reads; running sagas is the worker's business.
 */
export type { FirstBuy, LaunchRequestData, SagaRow } from "./row.ts";

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
 * Creates the saga queue with NOTIFY on (a sent job wakes a listening worker at once instead of
 * at its next poll), turning it on for a queue an older version created without it.
 *
 * @example
 * await ensureLaunchQueue(boss);
 */
export async function ensureLaunchQueue(boss: PgBoss): Promise<void> {
  await boss.createQueue(LAUNCH_LIMITS.queue, { notify: true });
  await boss.updateQueue(LAUNCH_LIMITS.queue, { notify: true });
}

/**
 * A pg-boss producer for the API: no maintenance or scheduling of its own (the worker does
 * that), started on first use.
 *
 * @example
 * const producer = createSagaProducer(databaseUrl); await producer.enqueue(agentId);
 */
export function createSagaProducer(databaseUrl: string) {
  let started: Promise<PgBoss> | undefined;
  const boss = () => {
    started ??= (async () => {
      const b = new PgBoss({
        connectionString: databaseUrl,
        schema: JOB_LIMITS.schema,
        max: JOB_LIMITS.producerConnections,
        application_name: "launchpad-api-producer",
        supervise: false,
        schedule: false,
      });
      b.on("error", () => {});
      await b.start();
      await ensureLaunchQueue(b);
      return b;
    })().catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    return started;
  };
  return {
    enqueue: async (agentId: string) => enqueueSaga(await boss(), agentId),
    stop: async () => {
      if (started) await (await started).stop({ graceful: false }).catch(() => {});
    },
  };
}

/**
 * Running sagas whose lease lapsed (their worker died, or the job was never delivered),
 * picked once they have been idle for a moment.
 */
export async function orphanedSagas(sql: Sql): Promise<string[]> {
  const rows = await sql<{ agent_id: string }[]>`
    select agent_id from app.launch_sagas
    where status = 'running' and (lease_until is null or lease_until < now())
      and updated_at < now() - make_interval(secs => ${LAUNCH_LIMITS.orphanIdleSeconds})
    limit ${LAUNCH_LIMITS.orphanBatch}`;
  return rows.map((r) => r.agent_id);
}
