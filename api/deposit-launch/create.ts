import { isDeepStrictEqual } from "node:util";
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  type Hex,
  type LocalAccount,
  type PublicClient,
  parseEventLogs,
} from "viem";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import type { Sql } from "../../lib/db/client.ts";
import { checkImage, ImageCheckError } from "../../lib/image/check.ts";
import type { Logger } from "../../lib/logger.ts";
import { type Relayer, rebroadcastRelayerTxs, type StoredTx } from "../../lib/relayer/nonce.ts";
import { sendRelayerTxs } from "../../lib/relayer/send.ts";
import { waitRelayerTx } from "../../lib/relayer/wait.ts";
import { HttpError, launchFailureMessage } from "../errors.ts";
import { DEPOSIT_LAUNCH_LIMITS, LOCK_NAMESPACES, SESSION_LIMITS } from "../limits.ts";
import type { CreatedLaunchBody, CreateLaunchInput } from "./schema.ts";

export type DepositLaunchDeps = {
  sql: Sql;
  client: PublicClient;
  relayer: LocalAccount;
  factory: Address;
  chainId: number;
  trustedImageOrigins: string[];
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

const invalid = (path: string, message: string) =>
  new HttpError("validation_failed", {
    message: `${path}: ${message}`,
    details: [{ path, message }],
  });

/**
 * Creates a deposit launch for the session's wallet: checks the body against the factory's
 * tiers, window and tax bounds and the image like an agent launch's, then the relayer sends
 * `createLaunch(…, creator = the wallet)`. The signed transaction is stored before it is
 * broadcast, so a retry with the same Idempotency-Key re-sends the same bytes and never makes
 * a second launch. The launch row itself is the indexer's; this answers from the receipt.
 */
export async function createDepositLaunch(
  d: DepositLaunchDeps,
  p: { creator: Address; body: CreateLaunchInput; idempotencyKey?: string; log: Logger },
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
  const data = await checkAgainstChain(d, p.body, p.creator);
  const row = await sql.begin(async (tx) => {
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
    return r;
  });
  if (!row) {
    throw new HttpError("rate_limited", {
      message: "a request with this Idempotency-Key is in flight; retry in a few seconds",
      headers: { "Retry-After": "2" },
    });
  }
  try {
    const [tx] = await sendRelayerTxs(relayerOf(d, p.log), [{ to: d.factory, data }], ([stored]) =>
      sql`update app.deposit_launch_requests set tx = ${sql.json(stored as never)}, updated_at = now()
          where request_id = ${row.request_id}`.then(() => {}),
    );
    row.tx = tx ?? null;
  } catch (error) {
    await fail(sql, row.request_id, error);
    throw upstream(row.request_id, error);
  }
  d.killAfterStore?.();
  return finish(d, row, p.log);
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
  if (outcome.kind === "dropped" || outcome.receipt.status !== "success") {
    const why = new Error(
      `createLaunch ${row.tx.hash} ${outcome.kind === "dropped" ? "was dropped" : "reverted"}`,
    );
    await fail(d.sql, row.request_id, why);
    throw upstream(row.request_id, why);
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
    throw upstream(requestId, new Error(`createLaunch ${txHash} emitted no LaunchCreated`));
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

/** The body's chain-bound checks (tier enabled, close window, image), then the calldata. */
async function checkAgainstChain(
  d: DepositLaunchDeps,
  b: CreateLaunchInput,
  creator: Address,
): Promise<Hex> {
  if (Number(b.tier) > 255) throw invalid("tier", `tier ${b.tier} is not a tier id (0-255)`);
  const f = { address: d.factory, abi: launchFactoryAbi } as const;
  const [tier, maxDuration, block] = await Promise.all([
    d.client.readContract({ ...f, functionName: "tiers", args: [Number(b.tier)] }),
    d.client.readContract({ ...f, functionName: "MAX_DURATION" }),
    d.client.getBlock({ blockTag: "latest" }),
  ]).catch((error: unknown) => {
    throw new HttpError("unavailable", {
      message: "the chain could not be read; retry",
      cause: error,
    });
  });
  if (!tier.enabled) throw invalid("tier", `tier ${b.tier} is not enabled on the factory`);
  const now = Number(block.timestamp);
  const earliest = now + DEPOSIT_LAUNCH_LIMITS.minOpenSeconds;
  const latest = now + Number(maxDuration);
  if (b.closeTimestamp < earliest || b.closeTimestamp > latest) {
    throw invalid(
      "closeTimestamp",
      `must be between ${earliest} and ${latest} (chain time ${now})`,
    );
  }
  try {
    await checkImage({ url: b.image, trustedOrigins: d.trustedImageOrigins });
  } catch (error) {
    if (error instanceof ImageCheckError) throw invalid("image", error.message);
    throw error;
  }
  const metadata = JSON.stringify({
    description: b.description,
    image: b.image,
    socials: b.socials ?? {},
  });
  return encodeFunctionData({
    abi: launchFactoryAbi,
    functionName: "createLaunch",
    args: [
      Number(b.tier),
      b.name,
      b.symbol,
      metadata,
      BigInt(b.closeTimestamp),
      b.buyTaxBps,
      b.sellTaxBps,
      creator,
    ],
  });
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
function upstream(requestId: string, cause: unknown) {
  return new HttpError("upstream_error", {
    message: launchFailureMessage("upstream_error", requestId),
    launchRequestId: requestId,
    cause,
  });
}
