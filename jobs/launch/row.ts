import type { Sql } from "../../lib/db/client.ts";
import type { StoredTx } from "../../lib/relayer/nonce.ts";

/** The LaunchRequest as the saga stores it. */
export type LaunchRequestData = {
  agentId: string;
  name: string;
  ticker: string;
  description: string;
  imageUrl: string;
  patronX?: string | null;
  chainId: 56;
  /** The agent's first buy in wei (four.meme's `preSale`); absent in requests stored before it. */
  firstBuyWei?: string;
  /** four.meme's `feePlan` (AntiSniperFeeMode); absent: on. */
  antiSniper?: boolean;
};

/** The first buy createToken made, from its receipt's TokenPurchase (wei strings). */
export type FirstBuy = { tokens: string; costWei: string; feeWei: string };

/** One row of `app.launch_sagas`. */
export type SagaRow = {
  agent_id: string;
  status: "running" | "succeeded" | "failed";
  attempt: number;
  /** This attempt's id: what a failed launch answers with for the caller to quote. */
  launch_id: string;
  request: LaunchRequestData;
  step: string | null;
  error_code: string | null;
  error_detail: string | null;
  wallet_id: string | null;
  wallet_address: `0x${string}` | null;
  fund_tx: StoredTx | null;
  safe_tx: StoredTx | null;
  treasury_address: `0x${string}` | null;
  identity_tx: `0x${string}` | null;
  eip8004_token_id: string | null;
  create_arg: `0x${string}` | null;
  create_signature: `0x${string}` | null;
  request_id: string | null;
  register_tx: StoredTx | null;
  create_tx: `0x${string}` | null;
  token_address: `0x${string}` | null;
  first_buy: FirstBuy | null;
};

/** Columns a step may write. */
export type SagaPatch = Partial<
  Omit<SagaRow, "agent_id" | "status" | "attempt" | "launch_id" | "request">
>;

/**
 * Writes a step's results into the saga row (and the in-memory copy).
 *
 * @example
 * await patchSaga(sql, saga, { wallet_id, wallet_address });
 */
export async function patchSaga(sql: Sql, saga: SagaRow, patch: SagaPatch): Promise<void> {
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch)) {
    values[k] = v !== null && typeof v === "object" ? sql.json(v as never) : v;
  }
  await sql`update app.launch_sagas set ${sql(values)}, updated_at = now() where agent_id = ${saga.agent_id}`;
  Object.assign(saga, patch);
}

/** Appends one step record (`begin` before it runs, `end`/`skip`/`error` after). */
export async function recordStep(
  sql: Sql,
  saga: SagaRow,
  step: string,
  phase: "begin" | "end" | "skip" | "error",
  detail?: Record<string, unknown>,
): Promise<void> {
  await sql`insert into app.launch_steps (agent_id, attempt, launch_id, step, phase, detail)
    values (${saga.agent_id}, ${saga.attempt}, ${saga.launch_id}, ${step}, ${phase}, ${detail ? sql.json(detail as never) : null})`;
}
