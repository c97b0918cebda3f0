import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PgBoss } from "pg-boss";
import type { Config } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { countPoll } from "../../lib/metrics/pollers.ts";
import type { Poller } from "../../lib/pollers/state.ts";
import { POLLER_VENUE } from "../../lib/pollers/status.ts";
import { type StartTickerReturnType, startTicker } from "../../lib/ticker.ts";
import { createHyperliquidClient } from "../../services/hyperliquid/client.ts";
import { resolveHyperliquid } from "../../services/hyperliquid/config.ts";
import { createSafeTxServiceClient } from "../../services/safe-tx-service/client.ts";
import { resolveSafeTxService } from "../../services/safe-tx-service/config.ts";
import { createXReadClient } from "../../services/x/client.ts";
import { resolveX } from "../../services/x/config.ts";
import { X_RATE_LIMITS, type XWindow } from "../../services/x/protocol.ts";
import { JOB_LIMITS, POLLER_LIMITS } from "../limits.ts";
import { pollPerpsAgent } from "./perps.ts";
import { perpsRound, safeRound, socialRound } from "./rounds.ts";
import { pollSafeAgent, safeBudget } from "./safe.ts";
import { pollSocialAgent, socialAgents } from "./social.ts";

export type StartPollersWorkerParameters = { boss: PgBoss; sql: Sql; config: Config; log: Logger };

/** One poller as the scheduler sees it: whom to poll, and one agent's poll. */
export type PollerSpec = {
  name: Poller;
  queue: string;
  everyMs: number;
  expireSeconds: number;
  agents: () => Promise<string[]>;
  poll: (agentId: string) => Promise<void>;
};

/**
 * Test mode only (`LAUNCHPAD_TEST_KILL_POINTS=poll-commit:<poller>`): SIGKILLs the worker inside
 * a poll's commit transaction, after its events are written, once per data directory (a marker
 * file lets the restarted worker pass), to prove a crash mid-poll loses and doubles nothing.
 */
function killPoint(config: Config, poller: Poller): (() => void) | undefined {
  if (config.LAUNCHPAD_ENV !== "test") return undefined;
  if (!(config.LAUNCHPAD_TEST_KILL_POINTS ?? "").split(",").includes(`poll-commit:${poller}`))
    return undefined;
  return () => {
    const dir = join(config.dataDir, "test-kills");
    const marker = join(dir, `poll-commit.${poller}`);
    if (existsSync(marker)) return;
    mkdirSync(dir, { recursive: true });
    writeFileSync(marker, String(Date.now()));
    process.kill(process.pid, "SIGKILL");
  };
}

/** The pollers this configuration runs (a poller without its service configured is off). */
export function pollerSpecs(p: StartPollersWorkerParameters): PollerSpec[] {
  const scale = p.config.LAUNCHPAD_ENV === "test" ? (p.config.POLL_TIME_SCALE ?? 1) : 1;
  const specs: PollerSpec[] = [];
  const spec = (
    name: "perps" | "safe" | "social",
    agents: (sql: Sql) => Promise<string[]>,
    poll: PollerSpec["poll"],
  ): PollerSpec => ({
    name,
    queue: POLLER_LIMITS[name].queue,
    everyMs: POLLER_LIMITS[name].everyMs * scale,
    expireSeconds: POLLER_LIMITS[name].expireSeconds,
    agents: () => agents(p.sql),
    poll,
  });
  const hl = resolveHyperliquid(p.config);
  if (hl) {
    // No retries inside a poll: the next tick is the retry, from the same cursor.
    const client = createHyperliquidClient({ apiUrl: hl.apiUrl, retries: 0 });
    const L = POLLER_LIMITS.perps;
    // Test mode compresses time: the budget's window, the sweep and the back-off with it (the
    // stand-in's window too), so a compressed poll spends the budget as a real one does.
    const ctx = {
      sql: p.sql,
      hl: client,
      log: p.log,
      beforeCommit: killPoint(p.config, "perps"),
      sweepEveryMs: L.sweepEveryMs * scale,
      pacing: {
        sql: p.sql,
        budget: {
          venue: POLLER_VENUE.perps,
          limit: L.weightBudgetPerMinute,
          windowMs: 60_000 * scale,
        },
        backoffMs: L.rateLimitBackoffMs * scale,
        maxBackoffMs: L.rateLimitMaxBackoffMs * scale,
      },
    };
    // Each round picks whom to poll within the budget's pace (jobs/pollers/rounds.ts).
    const round = () =>
      perpsRound(ctx, { roundMs: L.everyMs * scale, sweepFloorMs: L.sweepEveryMs * scale });
    specs.push(spec("perps", round, (agentId) => pollPerpsAgent(ctx, agentId)));
  }
  const safe = resolveSafeTxService(p.config);
  if (safe) {
    const client = createSafeTxServiceClient({
      apiUrl: safe.apiUrl,
      timeoutMs: p.config.UPSTREAM_TIMEOUT_MS,
      apiKey: p.config.SAFE_TX_SERVICE_API_KEY,
    });
    const L = POLLER_LIMITS.safe;
    // One request every 1/4 s rather than 4 in any second: the turn is booked just before the
    // request goes, and evenly spaced turns absorb a late send (a burst of 4 delayed by a
    // moment would meet the next second's at the service). The service counts requests a
    // second whatever the polls' pace: the window is not scaled in test mode.
    const budget = safeBudget();
    const ctx = {
      sql: p.sql,
      safe: client,
      log: p.log,
      beforeCommit: killPoint(p.config, "safe"),
      pacing: {
        budget,
        maxTurnWaitMs: L.maxTurnWaitMs,
        backoffMs: L.rateLimitBackoffMs * scale,
        maxBackoffMs: L.rateLimitMaxBackoffMs * scale,
      },
    };
    const round = (sql: Sql) => safeRound(sql, budget, { roundMs: L.everyMs * scale });
    specs.push(spec("safe", round, (agentId) => pollSafeAgent(ctx, agentId)));
  }
  const x = resolveX(p.config);
  if (x?.bearerToken) {
    const client = createXReadClient({
      apiUrl: x.apiUrl,
      bearerToken: x.bearerToken,
      timeoutMs: p.config.UPSTREAM_TIMEOUT_MS,
    });
    // The tier's windows of the two reads, shortened with the rest of time in test mode.
    const tier = X_RATE_LIMITS[p.config.X_API_TIER];
    const budget = (venue: string, w: XWindow) => ({
      venue,
      limit: w.limit,
      windowMs: w.windowSeconds * 1000 * scale,
    });
    const budgets = {
      timelines: budget(POLLER_VENUE.xTimelines, tier.userTweets),
      lookups: budget(POLLER_VENUE.xLookups, tier.userByUsername),
    };
    const ctx = {
      sql: p.sql,
      x: client,
      log: p.log,
      budgets,
      beforeCommit: killPoint(p.config, "social"),
    };
    const roundMs = POLLER_LIMITS.social.everyMs * scale;
    const agents = socialAgents(p.log, (targets) =>
      socialRound(p.sql, targets, budgets.timelines, { roundMs }),
    );
    specs.push(
      spec(
        "social",
        () => agents(p.sql),
        (agentId) => pollSocialAgent(ctx, agentId),
      ),
    );
  }
  return specs;
}

/**
 * Schedules and runs the pollers. Each tick sends one job per agent to the poller's queue,
 * keyed by the agent with a throttle of one tick, so several workers ticking together still
 * send one; the job polls the agent's targets. Polls are idempotent (cursor with overlap,
 * dedup by the source's ids), so a retried, doubled or killed job loses and doubles nothing.
 */
export async function startPollersWorker(
  p: StartPollersWorkerParameters,
  specs: PollerSpec[] = pollerSpecs(p),
): Promise<() => Promise<void>> {
  const tickers: StartTickerReturnType[] = [];
  for (const s of specs) {
    // The ticker's send NOTIFYs the workers; their polling is only the backstop.
    await p.boss.createQueue(s.queue, { expireInSeconds: s.expireSeconds, notify: true });
    await p.boss.updateQueue(s.queue, { notify: true });
    await p.boss.work<{ agentId: string }>(
      s.queue,
      {
        localConcurrency: POLLER_LIMITS.concurrency,
        pollingIntervalSeconds: JOB_LIMITS.pollingIntervalSeconds,
        notifyPollingIntervalSeconds: JOB_LIMITS.notifyPollingIntervalSeconds,
        // A round's jobs arrive together: each fetcher takes a batch and fetches again at once
        // while batches come back full, instead of one job per NOTIFY wake-up.
        batchSize: POLLER_LIMITS.batchSize,
        burstWhenBatchFull: true,
      },
      async (jobs) => {
        // One failed poll (already recorded by the poll) does not fail the batch's others.
        const failed: unknown[] = [];
        for (const job of jobs)
          await countPoll(s.name, () => s.poll(job.data.agentId)).catch((e) => failed.push(e));
        if (failed.length > 0) throw failed[0];
      },
    );
    tickers.push(
      startTicker({
        everyMs: s.everyMs,
        immediately: true,
        tick: async () => {
          for (const agentId of await s.agents()) {
            await p.boss.send(
              s.queue,
              { agentId },
              {
                singletonKey: agentId,
                singletonSeconds: Math.max(1, Math.floor(s.everyMs / 1000)),
                retryLimit: 0,
              },
            );
          }
        },
        onError: (error) => p.log.warn({ err: error, poller: s.name }, "poll tick failed"),
      }),
    );
  }
  if (specs.length > 0) p.log.info({ pollers: specs.map((s) => s.name) }, "pollers scheduled");
  return async () => {
    for (const t of tickers) await t.stop();
    for (const s of specs) await p.boss.offWork(s.queue);
  };
}
