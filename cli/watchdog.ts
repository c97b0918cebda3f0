import { createSql } from "../lib/db/client.ts";
import { readHeartbeat } from "../lib/heartbeat/index.ts";
import type { IndexerProgress } from "../lib/indexer/lag.ts";
import { startTicker } from "../lib/ticker.ts";
import { WATCHDOG_LIMITS } from "./limits.ts";

/** What the watchdog read: the indexer role's last report and when it was written. */
export type IndexerReport = { at: number; progress: IndexerProgress } | undefined;

/**
 * Decides whether the indexer role must be restarted, and why: its index has not moved for
 * `stallMs` while it is behind and the head moved within that time (the RPC answers, so
 * Ponder, not the chain, is stuck), or it stopped reporting for `stallMs` (the role hangs).
 * A role (re)started at `startedAt` is judged only once it has reported since; until then it
 * has `bootGraceMs` to do so. A Ponder the role restarted itself is judged from that start, and
 * not at all while the role waits to start it again (the database away): restarting the role
 * would not end that wait. Returns undefined when all is well or nothing can be told yet.
 */
export function indexerStall(
  report: IndexerReport,
  now: number,
  startedAt: number,
  stallMs: number = WATCHDOG_LIMITS.stallMs,
  bootGraceMs: number = WATCHDOG_LIMITS.bootGraceMs,
): string | undefined {
  if (!report || report.at < startedAt) {
    const booting = now - startedAt;
    return booting > Math.max(bootGraceMs, stallMs)
      ? `the indexer has not reported for ${Math.round(booting / 1000)} s since it started`
      : undefined;
  }
  const silent = now - report.at;
  if (silent > stallMs) return `the indexer has not reported for ${Math.round(silent / 1000)} s`;
  const p = report.progress;
  if (p.indexedBlock === null || p.headBlock === null || p.headBlock <= p.indexedBlock) return;
  // The role is waiting to start Ponder again (its back-off, the database away): its own wait.
  if (p.ponderStartedAt === null) return;
  // A Ponder the role (re)started gets a whole stallMs from its start, as a role does.
  const ponderFrom = p.ponderStartedAt ? Date.parse(p.ponderStartedAt) : 0;
  const stuck = now - Math.max(Date.parse(p.advancedAt), startedAt, ponderFrom);
  const headMoved = p.headMovedAt !== null && now - Date.parse(p.headMovedAt) < stallMs;
  if (stuck > stallMs && headMoved) {
    return `the index is stuck at block ${p.indexedBlock} for ${Math.round(stuck / 1000)} s while the RPC answers and the head moved to ${p.headBlock}`;
  }
  return undefined;
}

/**
 * Whether a stall calls for a restart: not when the index is stuck at the block where it was
 * stuck before the last restart (that restart did not help; another one would not either).
 * A role that stopped reporting is always restarted.
 */
export function restartHelps(stuckBeforeRestart: number | null, report: IndexerReport): boolean {
  const block = report?.progress.indexedBlock ?? null;
  return block === null || block !== stuckBeforeRestart;
}

/**
 * The supervisor's watchdog over the indexer role: every `checkEveryMs` reads the role's
 * heartbeat and calls `restart` with the reason when `indexerStall` finds one. When a restart
 * did not help (stuck at the same block again), it calls `giveUp` once instead and restarts no
 * more until the index moves. The supervisor calls `reset` whenever it (re)starts the role, for
 * whatever reason, so each start gets its boot grace.
 */
export function startIndexerWatchdog(p: {
  databaseUrl: string;
  restart: (reason: string) => void;
  giveUp: (reason: string) => void;
  checkEveryMs?: number;
  stallMs?: number;
}) {
  const sql = createSql(p.databaseUrl, { max: 1, appName: "launchpad-watchdog" });
  let startedAt = Date.now();
  // The block the index was stuck at when the watchdog last restarted the role, and whether it
  // has given up on it.
  let stuckAt: number | null = null;
  let gaveUp = false;
  const ticker = startTicker({
    everyMs: p.checkEveryMs ?? WATCHDOG_LIMITS.checkEveryMs,
    tick: async () => {
      const hb = await readHeartbeat(sql, "indexer").catch(() => null);
      if (hb === null) {
        // The database is away: the indexer cannot report, and a restart would not bring it
        // back. Judge it again, with a boot's grace, once the database answers.
        startedAt = Date.now();
        return;
      }
      const report = hb
        ? { at: hb.beatAt.getTime(), progress: hb.detail as IndexerProgress }
        : undefined;
      const block = report?.progress.indexedBlock ?? null;
      if (stuckAt !== null && block !== null && block !== stuckAt) {
        stuckAt = null;
        gaveUp = false;
      }
      const reason = indexerStall(report, Date.now(), startedAt, p.stallMs);
      if (!reason) return;
      const fresh =
        report !== undefined && Date.now() - report.at <= (p.stallMs ?? WATCHDOG_LIMITS.stallMs);
      if (fresh && !restartHelps(stuckAt, report)) {
        if (!gaveUp) p.giveUp(reason);
        gaveUp = true;
        return;
      }
      stuckAt = fresh ? block : null;
      startedAt = Date.now();
      p.restart(reason);
    },
  });
  return {
    /** Call when the indexer role (re)starts: its judgement starts over. */
    reset: () => {
      startedAt = Date.now();
    },
    stop: async () => {
      await ticker.stop();
      await sql.end({ timeout: 1 });
    },
  };
}

/**
 * The RPC error in a Ponder log line ("Received JSON-RPC error"), told briefly: the chain, the
 * call and the message. Undefined for any other line.
 *
 * @example
 * rpcErrorInLog(line); // 'arbitrum eth_getBlockByNumber ["0x1e0",false]: Block at number "0x1e0" could not be found.'
 */
export function rpcErrorInLog(line: string): string | undefined {
  if (!line.includes("Received JSON-RPC error")) return;
  try {
    const e = JSON.parse(line) as {
      chain?: string;
      request?: string;
      error?: { shortMessage?: string; message?: string };
    };
    const req = e.request ? (JSON.parse(e.request) as { method?: string; params?: unknown }) : {};
    const msg = e.error?.shortMessage ?? e.error?.message?.split("\n")[0] ?? "unknown error";
    return `${e.chain ?? "?"} ${req.method ?? "?"} ${JSON.stringify(req.params ?? [])}: ${msg}`;
  } catch {
    return;
  }
}
