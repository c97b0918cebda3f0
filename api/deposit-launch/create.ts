import { isDeepStrictEqual } from "node:util";
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  type Hex,
  type LocalAccount,
  type PublicClient,
  parseEventLogs,
} from "viem";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { type Relayer, rebroadcastRelayerTxs, type StoredTx } from "../../lib/relayer/nonce.ts";
import { gasLimitFor, sendRelayerTxs } from "../../lib/relayer/send.ts";
import {
  markRelayerSpendSent,
  type RelayerBudget,
  releaseRelayerSpend,
  settleRelayerSpend,
} from "../../lib/relayer/spend.ts";
import { waitRelayerTx } from "../../lib/relayer/wait.ts";
import { HttpError, LAUNCH_FAILURE_WORDS, launchFailureMessage } from "../errors.ts";
import { DEPOSIT_LAUNCH_LIMITS, LOCK_NAMESPACES, SESSION_LIMITS } from "../limits.ts";
import { refuseOverBudget, reserveOrRefuse } from "./budget.ts";
import { checkLaunchImage, invalid, launchCalldata } from "./calldata.ts";
import type { CreatedLaunchBody, CreateLaunchInput } from "./schema.ts";

export type DepositLaunchDeps = {
  sql: Sql;
  client: PublicClient;
  relayer: LocalAccount;
  factory: Address;
  chainId: number;
  trustedImageOrigins: string[];
  /** What the relayer may pay for launches: per client and hour, per UTC day. */
  budget: RelayerBudget;
  /** Test mode only: throw (the process's crash) right after the transaction was stored. */
  killAfterStore?: () => void;
};

export type CreateAnswer = { status: 201; body: { ok: true; data: CreatedLaunchBody } };

type Row = {
  request_id: string;
  status: "pending" | "created" | "failed";
  tx: StoredTx | null;
  launch: CreatedLaunchBody | null;
  error_detail: string | null;
  request: CreateLaunchInput;
};

export type CreateDepositLaunchParameters = {
  creator: Address;
  /** The caller's bucket (`clientBucket` of its address): the relayer's per-client budget. */
  client: string;
  body: CreateLaunchInput;
  idempotencyKey?: string;
  log: Logger;
};

/**
 * Creates a deposit launch for the session's wallet: checks the body against the factory's
 * tiers, window and tax bounds, counts it against the relayer's budget (the client's hour, the
 * day: 429 past either, nothing sent), checks the image like an agent launch's (a refused image
 * leaves no request and gives its place back), then the relayer sends `createLaunch(…, creator = the wallet)`. The signed transaction is stored
 * before it is broadcast, so a retry with the same Idempotency-Key re-sends the same bytes and
 * never makes a second launch. The launch row itself is the indexer's; this answers from the
 * receipt.
 *
 * @example
 * const answer = await createDepositLaunch(deps, { creator, client, body, log });
 */
export async function createDepositLaunch(
  d: DepositLaunchDeps,
  p: CreateDepositLaunchParameters,
): Promise<CreateAnswer> {
  const { sql } = d;
  if (p.idempotencyKey) {
    // A request that died before its transaction was stored sent nothing: after a minute
    // (far longer than signing takes) a retry may start it again.
    await sql`update app.deposit_launch_requests set status = 'failed', error_detail = 'abandoned before sending'
      where creator = ${p.creator} and idem_key = ${p.idempotencyKey} and status = 'pending'
        and tx is null and updated_at < now() - interval '1 minute'`;
    const [seen] = await sql<Row[]>`select * from app.deposit_launch_requests
      where creator = ${p.creator} and idem_key = ${p.idempotencyKey}`;
    if (seen && seen.status !== "failed") {
      if (!isDeepStrictEqual(seen.request, JSON.parse(JSON.stringify(p.body)))) {
        throw invalid("Idempotency-Key", "was used for a different body");
      }
      return finish(d, seen, p.log);
    }
  }
  const budget = { budget: d.budget, client: p.client };
  await refuseOverBudget(sql, budget);
  const data = await launchCalldata(d, p.body, p.creator);
  const { gas, maxWei } = await priced(d, data);
  const started = await sql.begin(async (tx) => {
    // One creator at a time: the count and the insert must not interleave.
    await tx`select pg_advisory_xact_lock(${LOCK_NAMESPACES.depositCreator}, hashtext(${p.creator}))`;
    await checkBudget(tx as unknown as Sql, p.creator);
    const [r] = await tx<Row[]>`
      insert into app.deposit_launch_requests (creator, idem_key, request, status)
      values (${p.creator}, ${p.idempotencyKey ?? null}, ${tx.json(p.body as never)}, 'pending')
      on conflict (creator, idem_key) do update set status = 'pending', request = excluded.request,
        tx = null, launch = null, error_detail = null, updated_at = now(), created_at = now()
        where app.deposit_launch_requests.status = 'failed'
      returning *`;
    if (!r) return undefined;
    // Over the relayer's budget: the 429 rolls the request row back with the reservation.
    const spendId = await reserveOrRefuse(tx as unknown as Sql, { ...budget, maxWei });
    return { row: r, spendId };
  });
  if (!started) {
    throw new HttpError("rate_limited", {
      message: "a request with this Idempotency-Key is in flight; retry in a few seconds",
      headers: { "Retry-After": "2" },
    });
  }
  const { row, spendId } = started;
  try {
    // Fetched only with a place in the budget held: a burst past it costs no image fetch.
    await checkLaunchImage(d, p.body);
  } catch (error) {
    // Bad input changes nothing: the request and its place in the budget go as if never made.
    await sql.begin(async (t) => {
      await t`delete from app.deposit_launch_requests where request_id = ${row.request_id} and tx is null`;
      await t`delete from app.relayer_spend where spend_id = ${spendId} and status = 'reserved'`;
    });
    throw error;
  }
  try {
    const call = { to: d.factory, data, gas };
    const [tx] = await sendRelayerTxs(relayerOf(d, p.log), [call], ([stored]) =>
      sql
        .begin(async (t) => {
          await t`update app.deposit_launch_requests set tx = ${t.json(stored as never)}, updated_at = now()
          where request_id = ${row.request_id}`;
          await markRelayerSpendSent(t as unknown as Sql, spendId, stored as StoredTx);
        })
        .then(() => {}),
    );
    row.tx = tx ?? null;
  } catch (error) {
    await fail(sql, row.request_id, error);
    await releaseRelayerSpend(sql, spendId);
    throw relayerFailure(row.request_id, error);
  }
  d.killAfterStore?.();
  return finish(d, row, p.log);
}

/** createLaunch's gas estimate from the relayer, and the most it can cost at today's price. */
async function priced(d: DepositLaunchDeps, data: Hex) {
  const [gas, gasPrice] = await Promise.all([
    d.client.estimateGas({ account: d.relayer.address, to: d.factory, data }),
    d.client.getGasPrice(),
  ]).catch((error: unknown) => {
    // Before any request row: no launch request to name; the answer's requestId finds the log.
    throw new HttpError("upstream_error", {
      message: `${LAUNCH_FAILURE_WORDS.upstream_error}; retry after 1 s, 2 s, 4 s, then quote the requestId to the operator`,
      cause: error,
    });
  });
  return { gas, maxWei: gasLimitFor(gas) * gasPrice };
}

function relayerOf(d: DepositLaunchDeps, log: Logger): Relayer {
  return { sql: d.sql, log, client: d.client, relayer: d.relayer, chain: { id: d.chainId } };
}

/** Broadcasts the stored transaction (again), waits for it, and records the outcome. */
async function finish(d: DepositLaunchDeps, row: Row, log: Logger): Promise<CreateAnswer> {
  if (row.status === "created" && row.launch)
    return { status: 201, body: { ok: true, data: row.launch } };
  if (!row.tx) {
    throw new HttpError("unavailable", {
      message: "this request is still being prepared; retry with the same Idempotency-Key",
      headers: { "Retry-After": "2" },
      launchRequestId: row.request_id,
    });
  }
  const relayer = relayerOf(d, log);
  await rebroadcastRelayerTxs(relayer, [row.tx]);
  const outcome = await waitRelayerTx(relayer, row.tx, {
    timeoutMs: DEPOSIT_LAUNCH_LIMITS.receiptTimeoutMs,
    pollMs: DEPOSIT_LAUNCH_LIMITS.receiptPollMs,
  });
  if (outcome.kind === "pending") {
    throw new HttpError("unavailable", {
      message: launchFailureMessage("unavailable", row.request_id),
      headers: { "Retry-After": "5" },
      launchRequestId: row.request_id,
    });
  }
  await settleRelayerSpend(d.sql, row.tx, outcome.kind === "mined" ? outcome.receipt : null);
  if (outcome.kind === "dropped" || outcome.receipt.status !== "success") {
    const why = new Error(
      `createLaunch ${row.tx.hash} ${outcome.kind === "dropped" ? "was dropped" : "reverted"}`,
    );
    await fail(d.sql, row.request_id, why);
    throw relayerFailure(row.request_id, why);
  }
  const launch = fromReceipt(outcome.receipt.logs, row.tx.hash, row.request_id);
  await d.sql`update app.deposit_launch_requests set status = 'created', launch = ${d.sql.json(launch as never)},
    updated_at = now() where request_id = ${row.request_id}`;
  return { status: 201, body: { ok: true, data: launch } };
}

function fromReceipt(
  logs: Parameters<typeof parseEventLogs>[0]["logs"],
  txHash: Hex,
  requestId: string,
) {
  const [created] = parseEventLogs({ abi: launchFactoryAbi, logs, eventName: "LaunchCreated" });
  const [meta] = parseEventLogs({ abi: launchFactoryAbi, logs, eventName: "LaunchMetadata" });
  if (!created || !meta)
    throw relayerFailure(requestId, new Error(`createLaunch ${txHash} emitted no LaunchCreated`));
  const a = created.args;
  const lower = (x: string) => x.toLowerCase();
  return {
    id: a.launchId.toString(),
    vault: lower(a.vault),
    router: lower(a.router),
    treasury: lower(a.treasury),
    predictedToken: lower(a.predictedToken),
    creator: lower(a.creator),
    tier: String(a.tier),
    name: meta.args.name,
    symbol: meta.args.symbol,
    closeTimestamp: new Date(Number(a.closeTimestamp) * 1000).toISOString(),
    buyTaxBps: a.buyTaxBps,
    sellTaxBps: a.sellTaxBps,
    status: "open" as const,
    txHash: txHash.toLowerCase() as Hex,
  };
}

/**
 * The wallet's budget: 5 launches per sliding hour (SESSION_LIMITS), counted from its own
 * durable requests (failed ones, which created nothing, do not count). 429 past it, with
 * `Retry-After` until the oldest one leaves the hour.
 */
async function checkBudget(sql: Sql, creator: Address) {
  const [row] = await sql<{ n: number; reset: number | null }[]>`
    select count(*)::int as n,
      ceil(extract(epoch from min(created_at) + interval '1 hour' - now()))::int as reset
    from app.deposit_launch_requests
    where creator = ${creator} and status <> 'failed' and created_at > now() - interval '1 hour'`;
  if (row && row.n >= SESSION_LIMITS.launchesPerHour) {
    throw new HttpError("rate_limited", {
      message: `more than ${SESSION_LIMITS.launchesPerHour} launches per hour for this wallet; retry after ${row.reset} s`,
      headers: { "Retry-After": String(Math.max(1, row.reset ?? 1)) },
    });
  }
}

/**
 * Marks the request failed with its cause: the operator's (`GET /v2/admin/launches/{id}`), never
 * the caller's. A viem error's short message and details, a revert's error name; not its full
 * message, which names the RPC URL.
 */
async function fail(sql: Sql, requestId: string, error: unknown) {
  await sql`update app.deposit_launch_requests set status = 'failed', error_detail = ${causeText(error).slice(0, 500)},
    updated_at = now() where request_id = ${requestId}`;
}

function causeText(error: unknown): string {
  if (!(error instanceof BaseError)) return (error as Error)?.message ?? String(error);
  const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (revert instanceof ContractFunctionRevertedError && revert.data?.errorName)
    return `reverted: ${revert.data.errorName}`;
  return error.details ? `${error.shortMessage} (${error.details})` : error.shortMessage;
}

/** The caller's answer to a createLaunch that failed: fixed words and the request's id. */
function relayerFailure(requestId: string, cause: unknown) {
  return new HttpError("upstream_error", {
    message: launchFailureMessage("upstream_error", requestId),
    launchRequestId: requestId,
    cause,
  });
}
