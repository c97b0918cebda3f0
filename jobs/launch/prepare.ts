import type { Address } from "viem";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { type RelayerCall, rebroadcastRelayerTxs, type StoredTx } from "../../lib/relayer/nonce.ts";
import { LAUNCH_LIMITS } from "../limits.ts";
import type { SagaContext } from "./context.ts";
import { fourmemeSession } from "./fourmeme.ts";
import { maybeKill } from "./kill-points.ts";
import { settleRelayerTx } from "./settle-relayer-tx.ts";

// Wallets prepared before the launch request. The agent wallet can send only what it can pay
// for with what is mined, the ServiceRegistry entry needs the token that createToken's receipt
// names, and four.meme's create needs the wallet's login: with all of it done at the request, a
// launch takes three blocks. An agent registered ahead of its launch gets its wallet now (the
// signer makes one per agent, so its webhooks name the right agent), the launch's whole budget
// (the launch fee and the gas of its identity and createToken) and its four.meme login, so the
// launch registers its identity and creates its token in its first block and writes the entry
// in its second.
/** Kill points of the preparation (test mode), after its steps and before the broadcast. */
export const PREPARE_KILL_POINTS = ["prepare-wallet", "prepare-stored", "prepare-funded"] as const;

type PrepRow = {
  agent_id: string;
  wallet_id: string | null;
  wallet_address: Address | null;
  fund_tx: StoredTx | null;
};

/** Gas money a wallet must hold to register its identity at today's gas price. */
export async function identityGas(ctx: SagaContext): Promise<bigint> {
  return (await ctx.client.getGasPrice()) * LAUNCH_LIMITS.identityGasUnits;
}

/** TokenManager2's launch fee, the value of createToken (no presale). */
export const launchFee = (ctx: SagaContext) =>
  ctx.client.readContract({
    address: ctx.contracts.tokenManager2,
    abi: tokenManager2Abi,
    functionName: "_launchFee",
  });

/**
 * What the agent wallet pays for its launch at today's gas price: the launch fee and the gas of
 * its identity registration and createToken (LAUNCH_LIMITS.fundGasUnits).
 */
export async function launchBudget(ctx: SagaContext, gasHeadroom = 1n): Promise<bigint> {
  const [gasPrice, fee] = await Promise.all([ctx.client.getGasPrice(), launchFee(ctx)]);
  return fee + gasPrice * LAUNCH_LIMITS.fundGasUnits * gasHeadroom;
}

/**
 * Prepares the wallets of agents registered but not launched yet (no saga), a few per call,
 * the oldest first. Each preparation is claimed with a lease, so concurrent workers do not
 * fund one wallet twice; a crashed one is resumed once its lease lapses.
 *
 * @example
 * await prepareWallets(ctx); // from the worker's sweep
 */
export async function prepareWallets(ctx: SagaContext): Promise<void> {
  // Expired logins are of no use: their sealed tokens do not stay at rest.
  await ctx.sql`delete from app.fourmeme_sessions where expires_at < now()`;
  const candidates = await ctx.sql<{ agent_id: string }[]>`
    select a.agent_id from app.agents a
    left join app.launch_wallets w on w.agent_id = a.agent_id
    where a.token_address is null
      and not exists (select 1 from app.launch_sagas s where s.agent_id = a.agent_id)
      and (w.agent_id is null or (w.status = 'preparing' and (w.lease_until is null or w.lease_until < now())))
    order by a.created_at
    limit ${LAUNCH_LIMITS.prepareBatch}`;
  for (const { agent_id } of candidates) {
    try {
      await prepareWallet(ctx, agent_id);
    } catch (error) {
      ctx.log.warn({ agentId: agent_id, err: error }, "wallet preparation failed; retried later");
    }
  }
}

/** Claims, provisions and funds one agent's wallet; returns false if another holds it. */
async function prepareWallet(ctx: SagaContext, agentId: string): Promise<boolean> {
  const { sql } = ctx;
  const lease = LAUNCH_LIMITS.prepareLeaseSeconds;
  const [row] = await sql<PrepRow[]>`
    insert into app.launch_wallets (agent_id, lease_until)
    values (${agentId}, now() + make_interval(secs => ${lease}))
    on conflict (agent_id) do update set lease_until = excluded.lease_until, updated_at = now()
      where launch_wallets.status = 'preparing'
        and (launch_wallets.lease_until is null or launch_wallets.lease_until < now())
    returning agent_id, wallet_id, wallet_address, fund_tx`;
  if (!row) return false;
  // Held while it runs, as a saga's lease is: a crashed worker's preparation lapses within one
  // lease, and a slow funding receipt does not hand a live one to another worker.
  const heartbeat = setInterval(() => {
    sql`update app.launch_wallets set lease_until = now() + make_interval(secs => ${lease})
      where agent_id = ${agentId} and status = 'preparing'`.catch(() => {});
  }, LAUNCH_LIMITS.heartbeatMs);
  try {
    return await provisionAndFund(ctx, agentId, row);
  } finally {
    clearInterval(heartbeat);
  }
}

async function provisionAndFund(ctx: SagaContext, agentId: string, row: PrepRow): Promise<true> {
  const { sql } = ctx;
  const kill = (step: string) =>
    maybeKill({ points: ctx.killPoints, dataDir: ctx.dataDir, agentId, step });
  if (!row.wallet_id) {
    const w = await ctx.steward.provisionWallet({ agentId });
    row.wallet_id = w.walletId;
    row.wallet_address = w.address.toLowerCase() as Address;
    await sql`update app.launch_wallets set wallet_id = ${row.wallet_id},
      wallet_address = ${row.wallet_address}, updated_at = now() where agent_id = ${agentId}`;
    kill("prepare-wallet");
  }
  const address = row.wallet_address as Address;
  const needed = async (): Promise<RelayerCall | null> => {
    const [balance, budget, target] = await Promise.all([
      ctx.client.getBalance({ address }),
      launchBudget(ctx),
      launchBudget(ctx, LAUNCH_LIMITS.prepareGasPriceHeadroom),
    ]);
    // Topped up only below the bare need: a little drift in the gas price is not worth a tx.
    return balance >= budget ? null : { to: address, value: target - balance };
  };
  // A kill inside the four.meme login beside it may have cut the store's own kill point short
  // (the saga's funding step says the same): a stored funding is that state.
  if (row.fund_tx) kill("prepare-stored");
  // A stored funding that never reached the node goes out now; settle tells mined from dropped.
  await rebroadcastRelayerTxs(ctx, [row.fund_tx]);
  await Promise.all([
    settleRelayerTx({
      ctx,
      stored: row.fund_tx,
      needed,
      save: async (tx) => {
        await sql`update app.launch_wallets set fund_tx = ${sql.json(tx as never)}, updated_at = now()
          where agent_id = ${agentId}`;
        kill("prepare-stored");
      },
    }),
    // The login four.meme's create needs, now rather than at the request (kept for
    // LAUNCH_LIMITS.fourmemeSessionTtlMs); without it the launch logs in itself.
    fourmemeSession(ctx, { agentId, walletId: row.wallet_id as string, address }).catch(
      (error: unknown) =>
        ctx.log.warn({ agentId, err: error }, "four.meme login ahead of the launch failed"),
    ),
  ]);
  await sql`update app.launch_wallets set status = 'ready', lease_until = null, updated_at = now()
    where agent_id = ${agentId}`;
  kill("prepare-funded");
  return true;
}
