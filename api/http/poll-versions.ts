// Per-process versions of what a poller writes per agent, moved by the poller's own NOTIFY
// (sent in its transaction, so delivered with the rows): a cached answer is checked against a
// number in memory instead of a query per request.
import type { Sql } from "../../lib/db/client.ts";
import type { Logger } from "../../lib/logger.ts";

export type PollVersions = {
  /**
   * The version of `agentId`'s polled rows, or undefined while not listening (the caller then
   * reads a version from the rows themselves).
   */
  version(agentId: string): string | undefined;
};

/**
 * Listens on `channel` (payload: an agent id); each notification moves that agent's version.
 * Every (re)connect of the listening connection moves every version: what was notified while
 * it was down is unknown (until then, the cache's own age bound limits what it serves). The
 * listening connection ends with `sql`.
 *
 * @example
 * const polls = listenPollVersions(sql, PERPS_CHANGED_CHANNEL, log);
 * const v = polls.version("agent-1") ?? (await perpsVersion(sql, "agent-1")).version;
 */
export function listenPollVersions(sql: Sql, channel: string, log?: Logger): PollVersions {
  let epoch = 0;
  let listening = false;
  const counts = new Map<string, number>();
  sql
    .listen(
      channel,
      (agentId) => counts.set(agentId, (counts.get(agentId) ?? 0) + 1),
      () => {
        epoch++;
        counts.clear();
        listening = true;
      },
    )
    .catch((error: unknown) => {
      log?.warn({ err: error, channel }, "poll versions: not listening; reads check the rows");
    });
  return {
    version: (agentId) => (listening ? `${epoch}.${counts.get(agentId) ?? 0}` : undefined),
  };
}
