import type { PgBoss } from "pg-boss";
import { Gauge, Histogram } from "prom-client";
import { registry, SLOW_BUCKETS, Sources } from "./registry.ts";

/** pg-boss instances whose queues a scrape counts (one per started worker). */
export const QUEUES = new Sources<PgBoss>();

export const jobWait = new Histogram({
  name: "launchpad_job_wait_seconds",
  help: "Time a pg-boss job waited from when it could run (created, or its start-after) to a worker picking it up, by queue",
  labelNames: ["queue"] as const,
  buckets: SLOW_BUCKETS,
  registers: [registry],
});

export const jobDuration = new Histogram({
  name: "launchpad_job_duration_seconds",
  help: "Time a pg-boss handler ran, by queue and outcome (ok, failed)",
  labelNames: ["queue", "outcome"] as const,
  buckets: SLOW_BUCKETS,
  registers: [registry],
});

export const sagaStep = new Histogram({
  name: "launchpad_saga_step_duration_seconds",
  help: "Launch saga steps by step and outcome (done, skip: already done on the chain or upstream, error)",
  labelNames: ["step", "outcome"] as const,
  buckets: SLOW_BUCKETS,
  registers: [registry],
});

new Gauge({
  name: "launchpad_job_queue_depth",
  help: "pg-boss jobs per queue and state (ready: runnable now, deferred: waiting for their time, active, failed: retained failures)",
  labelNames: ["queue", "state"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const boss of QUEUES.all) {
      const queues = await boss.getQueues().catch(() => []);
      for (const q of queues) {
        this.set({ queue: q.name, state: "ready" }, q.readyCount);
        this.set({ queue: q.name, state: "deferred" }, q.deferredCount);
        this.set({ queue: q.name, state: "active" }, q.activeCount);
        this.set({ queue: q.name, state: "failed" }, q.failedCount);
      }
    }
  },
});

type Timed = { createdOn?: Date; startAfter?: Date; startedOn?: Date };

/**
 * Times every handler this pg-boss instance runs (wait and run time per queue) and counts its
 * queues on a scrape, without touching the handlers: `work` is wrapped once here. Returns the
 * function that stops counting the queues.
 */
export function instrumentBoss(boss: PgBoss): () => void {
  const work = boss.work.bind(boss) as (...args: unknown[]) => Promise<string>;
  const wrapped = (name: string, a: unknown, b?: unknown) => {
    const handler = (b ?? a) as (jobs: Timed[], ...rest: unknown[]) => Promise<unknown>;
    // The metadata carries the times the wait is measured from; handlers ignore the extra fields.
    const options = b ? { ...(a as object), includeMetadata: true } : { includeMetadata: true };
    return work(name, options, async (jobs: Timed[], ...rest: unknown[]) => {
      const now = Date.now();
      for (const j of jobs) {
        const from = Math.max(j.createdOn?.getTime() ?? now, j.startAfter?.getTime() ?? 0);
        jobWait.observe(
          { queue: name },
          Math.max(0, (j.startedOn?.getTime() ?? now) - from) / 1000,
        );
      }
      const end = jobDuration.startTimer({ queue: name });
      try {
        const result = await handler(jobs, ...rest);
        end({ outcome: "ok" });
        return result;
      } catch (error) {
        end({ outcome: "failed" });
        throw error;
      }
    });
  };
  boss.work = wrapped as typeof boss.work;
  return QUEUES.add(boss);
}

/** Starts timing one saga step; call the result with its outcome. */
export function timeSagaStep(step: string): (outcome: string) => void {
  const end = sagaStep.startTimer({ step });
  return (outcome) => void end({ outcome });
}
