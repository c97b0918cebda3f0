import { setTimeout as sleep } from "node:timers/promises";
import { formatEther } from "viem";
import type { LaunchRequestData, SagaRow } from "../../jobs/launch/producer.ts";
import type { Sql } from "../../lib/db/client.ts";
import { checkImage } from "../../lib/image/check.ts";
import { countHit } from "../../lib/rate-limit.ts";
import { HttpError, type LaunchErrorBody, launchFailureMessage } from "../errors.ts";
import { LAUNCH_API_LIMITS } from "../limits.ts";
import type { LaunchRequestBody, LaunchResponseBody } from "./schema.ts";

export type LaunchDeps = {
  sql: Sql;
  /** Sends saga jobs (the API's own pg-boss producer; see jobs/launch/producer.ts). */
  enqueue: (agentId: string) => Promise<void>;
  trustedImageOrigins: string[];
  /** How long a request waits for its saga before answering 503 (the saga goes on). */
  deadlineMs: number;
  webUrl: string;
  launchpadTokenUrl: string;
  /** Launch requests per key per minute (LAUNCH_API_LIMITS by default); 0 turns it off. */
  perKeyPerMinute?: number;
  /** The most wei a first buy may spend (LAUNCH_FIRST_BUY_MAX_BNB). */
  firstBuyMaxWei: bigint;
};

/** A launch answer: the status and the exact body, also what an Idempotency-Key replays. */
export type LaunchAnswer = {
  status: 200 | 409 | 502 | 503;
  body: LaunchResponseBody | LaunchErrorBody;
};

/**
 * Counts one launch request against the key's budget (10 per minute unless configured) with
 * the shared rate limiter (lib/rate-limit.ts); throws 429 past it. 0 turns the limit off.
 */
export async function countLaunchRequest(
  sql: Sql,
  keyId: string,
  perKeyPerMinute: number = LAUNCH_API_LIMITS.perKeyPerMinute,
): Promise<void> {
  if (perKeyPerMinute === 0) return;
  const { windowSeconds } = LAUNCH_API_LIMITS;
  const { count, reset } = await countHit(sql, `launch-key:${keyId}`, windowSeconds);
  if (count > perKeyPerMinute) {
    throw new HttpError("rate_limited", {
      message: `more than ${perKeyPerMinute} launch requests per minute with this key; retry after ${reset} s`,
      headers: { "Retry-After": String(reset) },
    });
  }
}

const err = (status: LaunchAnswer["status"], error: string, detail: string): LaunchAnswer => ({
  status,
  body: { ok: false, error, detail },
});

/**
 * A failed attempt's answer: the code's fixed words and the attempt's id, never the stored
 * cause (`error_detail`: an upstream's URL, a database error), which is the operator's.
 */
const failed = (s: SagaRow): LaunchAnswer => {
  const code = s.error_code === "LAUNCHPAD_ERROR" ? "LAUNCHPAD_ERROR" : "ORCHESTRATOR_UNAVAIL";
  return {
    status: code === "LAUNCHPAD_ERROR" ? 502 : 503,
    body: {
      ok: false,
      error: code,
      detail: launchFailureMessage(code, s.launch_id),
      launchId: s.launch_id,
    },
  };
};

/**
 * Refuses a first buy above the service's cap as an invalid body (400 INVALID_REQUEST naming
 * `firstBuyWei`), before anything else is looked at. Shared by the launch and its preview.
 *
 * @example
 * checkFirstBuy(body, 10n ** 17n);
 */
export function checkFirstBuy(body: LaunchRequestBody, maxWei: bigint): void {
  if (BigInt(body.firstBuyWei) <= maxWei) return;
  const message =
    maxWei === 0n
      ? "first buys are off at this service: send 0 or leave it out"
      : `must be at most ${maxWei} (${formatEther(maxWei)} BNB), this service's cap`;
  throw new HttpError("INVALID_REQUEST", {
    message: `firstBuyWei ${message}`,
    details: [{ path: "firstBuyWei", message }],
  });
}

/**
 * The launch after authentication and body validation: the first buy's cap, agent match, one
 * launch per agent, the image check, then the saga, waited for up to the deadline. Shared by
 * REST and MCP.
 */
export async function launchAgent(
  d: LaunchDeps,
  p: { keyAgentId: string; body: LaunchRequestBody; idempotencyKey?: string },
): Promise<LaunchAnswer> {
  const { sql } = d;
  const { body } = p;
  checkFirstBuy(body, d.firstBuyMaxWei);
  if (body.agentId !== p.keyAgentId) {
    throw new HttpError("AGENT_ID_MISMATCH", {
      message: "agentId is not the agent this key belongs to",
    });
  }
  let retried = false;
  if (p.idempotencyKey) {
    const [seen] = await sql<
      { status: number | null; body: LaunchAnswer["body"] | null; existed: boolean }[]
    >`
      insert into app.launch_idempotency (agent_id, idem_key) values (${body.agentId}, ${p.idempotencyKey})
      on conflict (agent_id, idem_key) do update set idem_key = excluded.idem_key
      returning status, body, (xmax <> 0) as existed`;
    if (seen?.body && seen.status)
      return { status: seen.status as LaunchAnswer["status"], body: seen.body };
    // A retry of a request still in flight waits for the same saga instead of starting one;
    // after a transient failure (nothing stored) it starts a new attempt below. So does a retry
    // whose first try failed before it made a saga (the database restarted under it): waiting
    // for a saga that will never exist answered 503 to every retry of that key.
    retried = seen?.existed === true;
    if (retried) {
      const [saga] = await sql<{ status: string }[]>`
        select status from app.launch_sagas where agent_id = ${body.agentId}`;
      if (saga && saga.status !== "failed")
        return remember(d, body.agentId, p.idempotencyKey, await waitForSaga(d, body.agentId));
    }
  }
  const answer = await startLaunch(d, body, retried);
  return p.idempotencyKey ? remember(d, body.agentId, p.idempotencyKey, answer) : answer;
}

/** `retried`: another try of this Idempotency-Key came first; it joins the saga that one started. */
async function startLaunch(
  d: LaunchDeps,
  body: LaunchRequestBody,
  retried = false,
): Promise<LaunchAnswer> {
  const { sql } = d;
  const [existing] = await sql<
    { status: string }[]
  >`select status from app.launch_sagas where agent_id = ${body.agentId}`;
  if (existing?.status === "succeeded")
    return err(409, "AGENT_ALREADY_LAUNCHED", "this agent has already launched its token");
  if (existing?.status === "running")
    return err(409, "AGENT_ALREADY_LAUNCHED", "a launch of this agent is in progress");
  // Fetched only for an authenticated agent that may launch: no anonymous fetch amplification.
  // An ImageCheckError becomes 400 INVALID_REQUEST with its reason (api/errors.ts toHttpError).
  await checkImage({ url: body.imageUrl, trustedOrigins: d.trustedImageOrigins });
  // Typed as the saga stores it: the compiler keeps the API body and the stored request in step.
  const request: LaunchRequestData = { ...body, patronX: body.patronX ?? null };
  // The database decides who launches: only one request turns a new or failed saga into a running one.
  const [claimed] = await sql`
    insert into app.launch_sagas (agent_id, status, request) values (${body.agentId}, 'running', ${sql.json(request as never)})
    on conflict (agent_id) do update set status = 'running', attempt = app.launch_sagas.attempt + 1,
      request = excluded.request, error_code = null, error_detail = null, step = null,
      launch_id = gen_random_uuid(),
      lease_owner = null, lease_until = null, started_at = now(), updated_at = now(), finished_at = null,
      -- Args bound to an earlier name or ticker are useless once the request changed.
      create_arg = case when app.launch_sagas.create_tx is null and app.launch_sagas.request is distinct from excluded.request then null else app.launch_sagas.create_arg end,
      create_signature = case when app.launch_sagas.create_tx is null and app.launch_sagas.request is distinct from excluded.request then null else app.launch_sagas.create_signature end
    where app.launch_sagas.status = 'failed'
    returning agent_id`;
  if (!claimed) {
    // Two tries of one key at once, both past the check above: the one that lost the claim
    // answers with the saga the other started (a 409 stored for the key would hide its result).
    if (retried) return waitForSaga(d, body.agentId);
    return err(409, "AGENT_ALREADY_LAUNCHED", "this agent has launched or a launch is in progress");
  }
  await sql`update app.agents set status = 'pending' where agent_id = ${body.agentId} and token_address is null`;
  try {
    await d.enqueue(body.agentId);
  } catch {
    // The worker's sweeper also picks up a saga nobody was told about; say so only if it
    // does not within the deadline.
  }
  return waitForSaga(d, body.agentId);
}

async function waitForSaga(d: LaunchDeps, agentId: string): Promise<LaunchAnswer> {
  const deadline = Date.now() + d.deadlineMs;
  for (;;) {
    const [s] = await d.sql<(SagaRow & { tx_hash: string | null })[]>`
      select * from app.launch_sagas where agent_id = ${agentId}`;
    if (s?.status === "succeeded") return { status: 200, body: launchResponse(d, s) };
    if (s?.status === "failed") return failed(s);
    if (Date.now() > deadline) {
      const detail =
        "the launch is still running; retry with the same Idempotency-Key for its result";
      const launchId = s ? { launchId: s.launch_id } : {};
      return {
        status: 503,
        body: { ok: false, error: "ORCHESTRATOR_UNAVAIL", detail, ...launchId },
      };
    }
    await sleep(LAUNCH_API_LIMITS.pollMs);
  }
}

function launchResponse(d: LaunchDeps, s: SagaRow): LaunchResponseBody {
  const token = s.token_address as string;
  return {
    ok: true,
    data: {
      agentId: s.agent_id,
      tokenAddress: token,
      txHash: s.create_tx as string,
      eip8004TokenId: String(s.eip8004_token_id),
      treasuryAddress: s.treasury_address as string,
      walletAddress: s.wallet_address as string,
      agentPageUrl: `${d.webUrl}/agent/${token}`,
      launchpadUrl: d.launchpadTokenUrl.replace("{address}", token),
      antiSniper: s.request.antiSniper ?? true,
      firstBuy: s.first_buy,
    },
  };
}

/**
 * Stores the answer for an Idempotency-Key when it is final: a success or a client error. A
 * 502/503 is transient by definition (the spec tells clients to retry it after 1 s, 2 s, 4 s),
 * so a retry with the same key tries again instead of replaying the failure.
 */
async function remember(
  d: LaunchDeps,
  agentId: string,
  key: string,
  a: LaunchAnswer,
): Promise<LaunchAnswer> {
  if (a.status < 500) {
    await d.sql`update app.launch_idempotency set status = ${a.status}, body = ${d.sql.json(a.body as never)}
      where agent_id = ${agentId} and idem_key = ${key} and body is null`;
  }
  return a;
}
