import { randomUUID } from "node:crypto";
import { timeSagaStep } from "../../lib/metrics/jobs.ts";
import { LAUNCH_LIMITS } from "../limits.ts";
import { announceLaunch } from "./announce.ts";
import { STEPS } from "./chain-steps.ts";
import type { SagaContext } from "./context.ts";
import { classify } from "./errors.ts";
import { maybeKill } from "./kill-points.ts";
import { recordStep, type SagaRow } from "./row.ts";
import { SAGA_STAGES, type SagaStep } from "./step-names.ts";

const WORKER_ID = `${process.pid}:${randomUUID().slice(0, 8)}`;

/**
 * Runs (or resumes) the launch saga of one agent. Claims the saga's lease first, so exactly
 * one worker runs it; renews the lease while it runs; every step is recorded before and after
 * and skips itself when the chain or the upstream already shows it done. On success the
 * agent is launched; on failure the saga and the agent are marked failed with the code the
 * launch request answers with, and the cause (for the logs and the operator, never the caller).
 *
 * @example
 * await runSaga(ctx, agentId); // from the pg-boss handler
 */
export async function runSaga(ctx: SagaContext, agentId: string): Promise<void> {
  const { sql } = ctx;
  const [saga] = await sql<SagaRow[]>`
    update app.launch_sagas
    set lease_owner = ${WORKER_ID},
        lease_until = now() + make_interval(secs => ${LAUNCH_LIMITS.leaseMs / 1000})
    where agent_id = ${agentId} and status = 'running'
      and (lease_until is null or lease_until < now() or lease_owner = ${WORKER_ID})
    returning *`;
  if (!saga) return; // finished, or another worker holds it
  const heartbeat = setInterval(() => {
    sql`update app.launch_sagas
      set lease_until = now() + make_interval(secs => ${LAUNCH_LIMITS.leaseMs / 1000})
      where agent_id = ${agentId} and lease_owner = ${WORKER_ID}`.catch(() => {});
  }, LAUNCH_LIMITS.heartbeatMs);
  const log = ctx.log.child({ agentId, attempt: saga.attempt, launchId: saga.launch_id });
  let current = "start";
  const runStep = async (step: SagaStep) => {
    current = step;
    // The saga's current step and the step's begin record in one statement (one round trip).
    await sql`with s as (
        update app.launch_sagas set step = ${step}, updated_at = now() where agent_id = ${agentId})
      insert into app.launch_steps (agent_id, attempt, launch_id, step, phase)
      values (${agentId}, ${saga.attempt}, ${saga.launch_id}, ${step}, 'begin')`;
    const timed = timeSagaStep(step);
    const outcome = await STEPS[step](ctx, saga).catch((error: unknown) => {
      timed("error");
      throw error;
    });
    timed(outcome);
    await recordStep(sql, saga, step, outcome === "done" ? "end" : "skip");
    log.info({ step, outcome }, "launch step");
    maybeKill({ points: ctx.killPoints, dataDir: ctx.dataDir, agentId, step });
  };
  const runLane = async (lane: readonly SagaStep[]) => {
    for (const step of lane) {
      try {
        await runStep(step);
      } catch (error) {
        throw new StepFailure(step, error);
      }
    }
  };
  try {
    for (const lanes of SAGA_STAGES as readonly (readonly (readonly SagaStep[])[])[]) {
      // Every lane runs to its end or its failure before the saga records one.
      const settled = await Promise.allSettled(lanes.map(runLane));
      const failed = settled.find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
    }
    current = "finish";
    await finish(ctx, saga);
    log.info({ token: saga.token_address }, "agent launched");
    if (ctx.announcer) await announceLaunch(ctx, ctx.announcer, saga);
  } catch (thrown) {
    const step = thrown instanceof StepFailure ? thrown.step : current;
    const error = thrown instanceof StepFailure ? thrown.error : thrown;
    current = step;
    const e = classify(error, current);
    log.warn({ step: current, code: e.code, err: error }, "launch failed");
    await recordStep(sql, saga, current, "error", { code: e.code, message: e.message }).catch(
      () => {},
    );
    await sql
      .begin(async (tx) => {
        await tx`update app.launch_sagas set status = 'failed', error_code = ${e.code},
          error_detail = ${e.message}, lease_owner = null, lease_until = null,
          finished_at = now(), updated_at = now()
        where agent_id = ${agentId} and lease_owner = ${WORKER_ID}`;
        await tx`update app.agents set status = 'failed' where agent_id = ${agentId} and token_address is null`;
      })
      .catch((err: unknown) => log.error({ err }, "could not record the failure"));
  } finally {
    clearInterval(heartbeat);
  }
}

/** A step's failure, carrying the step (lanes run at once, so "the current step" is ambiguous). */
class StepFailure {
  readonly step: string;
  readonly error: unknown;
  constructor(step: string, error: unknown) {
    this.step = step;
    this.error = error;
  }
}

/** Marks the saga succeeded and the agent launched, in one transaction. */
async function finish(ctx: SagaContext, saga: SagaRow): Promise<void> {
  const r = saga.request;
  await ctx.sql.begin(async (tx) => {
    await tx`update app.agents set
        name = ${r.name}, ticker = ${r.ticker}, description = ${r.description}, image_url = ${r.imageUrl},
        wallet_address = ${saga.wallet_address}, treasury_address = ${saga.treasury_address},
        eip8004_token_id = ${saga.eip8004_token_id}, token_address = ${saga.token_address},
        tx_hash = ${saga.create_tx}, launched_at = coalesce(launched_at, now()),
        status = 'pending'
      where agent_id = ${saga.agent_id}`;
    // The wallet's four.meme login has done its work: it does not stay at rest.
    await tx`delete from app.fourmeme_sessions where wallet_address = ${saga.wallet_address}`;
    await tx`update app.launch_sagas set status = 'succeeded', step = 'done', lease_owner = null,
        lease_until = null, finished_at = now(), updated_at = now(), error_code = null, error_detail = null
      where agent_id = ${saga.agent_id}`;
  });
}
