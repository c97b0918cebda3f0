import type { Sql } from "../../lib/db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { EVENT_JOB_LIMITS as L } from "../limits.ts";
import { projectArbitrumEvents } from "./arbitrum-projector.ts";
import { projectChainEvents } from "./projector.ts";

export type StartChainProjectorParameters = {
  sql: Sql;
  /** The schema the projector reads: Ponder's views schema (or a deployment's own). */
  schema: string;
  log: Logger;
  /** The perps venue's deposit address on Arbitrum, when that chain is indexed. */
  arbitrumBridge?: string;
  /** The backstop: a pass at least this often (default EVENT_JOB_LIMITS.projectEveryMs). */
  everyMs?: number;
};

export type StartChainProjectorReturnType = {
  /** Passes begun so far (the first one runs as the listener connects). */
  passes: () => number;
  /** Stops waking and resolves once the pass in flight, if any, has ended. */
  stop: () => Promise<void>;
};

/**
 * The chain projector in the worker: one pass whenever Ponder commits a block that changed a
 * table (it NOTIFYs `<schema>_live_query` with the tables' names, `[]` when none changed, as
 * for an empty block), on every (re)connect of that listener, and every `everyMs` as a backstop.
 * Never two passes at once in this process (a wake during a pass runs one more after it); an
 * advisory lock keeps other workers' passes apart. An indexed chain event is in the feed a
 * pass's time after its block is committed.
 *
 * @example
 * const projector = await startChainProjector({ sql, schema: "onchain", log });
 * await projector.stop();
 */
export async function startChainProjector(
  p: StartChainProjectorParameters,
): Promise<StartChainProjectorReturnType> {
  const pass = () =>
    projectChainEvents(p.sql, { schema: p.schema })
      .then((r) => {
        if (r.deleted + r.updated > 0)
          p.log.info(r, "chain projector corrected the feed after a reorg");
      })
      .catch((error: unknown) => p.log.warn({ err: error }, "chain projection failed; retrying"))
      // The second chain (USDC on Arbitrum), when indexed: its own pass, its own positions.
      .then(() =>
        p.arbitrumBridge
          ? projectArbitrumEvents(p.sql, { schema: p.schema, bridge: p.arbitrumBridge }).then(
              (r) => {
                if (r.deleted + r.updated > 0)
                  p.log.info(r, "arbitrum projector corrected the feed after a reorg");
              },
            )
          : undefined,
      )
      .catch((error: unknown) =>
        p.log.warn({ err: error }, "arbitrum projection failed; retrying"),
      );
  let passes = 0;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    passes++;
    running = pass().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        wake();
      }
    });
  };
  const listener = await p.sql.listen(
    `${p.schema}_live_query`,
    (tables) => {
      if (tables !== "[]") wake();
    },
    wake,
  );
  const timer = setInterval(wake, p.everyMs ?? L.projectEveryMs);
  timer.unref();
  return {
    passes: () => passes,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await listener.unlisten().catch(() => {});
      await running;
    },
  };
}
