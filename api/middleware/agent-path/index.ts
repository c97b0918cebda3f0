import type { Context, MiddlewareHandler } from "hono";
import { type DashboardAgent, findAgent } from "../../../lib/agents/read.ts";
import type { Sql } from "../../../lib/db/client.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";
import type { IndexedBlockTracker } from "../../http/indexed-block.ts";
import { errorResponse } from "../../http/schemas.ts";
import { READ_CACHE_LIMITS } from "../../limits.ts";

export type AgentPathOptions = {
  sql: Sql;
  /**
   * Public reads: keep each resolution for the indexed generation (every write of app.agents
   * moves it), so a read of an agent pays no lookup. Not for routes that use the steward's
   * wallet id: launch_sagas moves no generation.
   */
  tracker?: IndexedBlockTracker;
};

/** The 404 `agentPath` answers, for the routes behind it to declare. */
export const AGENT_NOT_FOUND = { 404: errorResponse("No agent has this token address") };

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const MAX_AGENT_ID = 64;

function malformed(message: string): HttpError {
  return new HttpError("validation_failed", {
    message: `agent: ${message}`,
    details: [{ path: "agent", message }],
  });
}

/**
 * The one place an `/v2/agents/{agent}/...` path is resolved: `agent` is the agent's token
 * address (any case) or its agent id. Something that starts like an address but is not one is
 * 400 `validation_failed`; an agent nobody has is 404. Sets `agent` (once per request: an
 * authentication middleware may have resolved it already).
 *
 * @example
 * createRoute({ ..., middleware: [agentPath({ sql })] });
 */
export function agentPath<E extends AppEnv = AppEnv>(o: AgentPathOptions): MiddlewareHandler<E> {
  const resolve = o.tracker
    ? cachedResolver(o.sql, o.tracker)
    : (raw: string) => resolveAgent(o.sql, raw);
  return async function agentPathMiddleware(c, next) {
    const ctx = c as unknown as Context<AppEnv>;
    if (!ctx.var.agent) ctx.set("agent", await resolve(c.req.param("agent") ?? ""));
    await next();
  };
}

/**
 * `resolveAgent` with its answers kept while the indexed generation stays (bounded, oldest out
 * first; a failure is not kept). A request that still holds an older generation looks up.
 */
function cachedResolver(sql: Sql, tracker: IndexedBlockTracker) {
  let gen = -1;
  const kept = new Map<string, Promise<DashboardAgent>>();
  return async (raw: string): Promise<DashboardAgent> => {
    const state = await tracker.current();
    if (state.gen < gen) return resolveAgent(sql, raw);
    if (state.gen > gen) {
      gen = state.gen;
      kept.clear();
    }
    // Addresses match in any case; agent ids as written.
    const key = /^0x/i.test(raw) ? raw.toLowerCase() : raw;
    const hit = kept.get(key);
    if (hit) return hit;
    const p = resolveAgent(sql, raw);
    if (kept.size >= READ_CACHE_LIMITS.maxEntries) {
      const oldest = kept.keys().next().value;
      if (oldest !== undefined) kept.delete(oldest);
    }
    kept.set(key, p);
    p.catch(() => {
      if (kept.get(key) === p) kept.delete(key);
    });
    return p;
  };
}

async function resolveAgent(sql: Sql, raw: string): Promise<DashboardAgent> {
  let agent: DashboardAgent | undefined;
  if (/^0x/i.test(raw)) {
    if (!ADDRESS.test(raw)) {
      throw malformed("must be a 20-byte hex address (0x + 40 hex digits) or an agent id");
    }
    agent = await findAgent(sql, { tokenAddress: raw.toLowerCase() });
    if (!agent) throw new HttpError("not_found", { message: `no agent has token ${raw}` });
    return agent;
  }
  if (raw.length === 0 || raw.length > MAX_AGENT_ID) {
    throw malformed(`must be a token address or an agent id of at most ${MAX_AGENT_ID} characters`);
  }
  agent = await findAgent(sql, { agentId: raw });
  if (!agent) throw new HttpError("not_found", { message: `no agent ${raw}` });
  return agent;
}

/**
 * The agent `agentPath` resolved for this request; a route that reads it without the
 * middleware in front is a programming error.
 */
export function agentOf(c: { var: { agent?: DashboardAgent } }): DashboardAgent {
  const agent = c.var.agent;
  if (!agent) throw new Error("agentOf: the route has no agentPath middleware");
  return agent;
}
