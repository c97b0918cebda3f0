import type { Address } from "viem";
import { type RelayerCall, rebroadcastRelayerTxs, type StoredTx } from "../../lib/relayer/nonce.ts";
import { LAUNCH_LIMITS } from "../limits.ts";
import type { SagaContext } from "./context.ts";
import { maybeKill } from "./kill-points.ts";
import { settleRelayerTx } from "./settle-relayer-tx.ts";

// Wallets prepared before the launch request. The agent wallet can send only once its gas
// money is mined, and the ServiceRegistry entry needs the identity's agentId, which exists only
// once the wallet's registration is mined: with the funding sent at the request, a launch
// takes three blocks. An agent registered ahead of its launch gets its wallet now (the signer
// makes one per agent, so its webhooks name the right agent) and the gas of its identity
// registration, so the launch registers in its first block and creates the token in its second.

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

/**
 * Prepares the wallets of agents registered but not launched yet (no saga), a few per call,
 * the oldest first. Each preparation is claimed with a lease, so concurrent workers do not
 * fund one wallet twice; a crashed one is resumed once its lease lapses.
 *
 * @example
 * await prepareWallets(ctx); // from the worker's sweep
 */
export async function prepareWallets(ctx: SagaContext): Promise<void> {
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
    const [balance, gas] = await Promise.all([
      ctx.client.getBalance({ address }),
      identityGas(ctx),
    ]);
    const target = gas * LAUNCH_LIMITS.prepareGasPriceHeadroom;
    // Topped up only below the bare need: a little drift in the gas price is not worth a tx.
    return balance >= gas ? null : { to: address, value: target - balance };
  };
  // A stored funding that never reached the node goes out now; settle tells mined from dropped.
  await rebroadcastRelayerTxs(ctx, [row.fund_tx]);
  await settleRelayerTx({
    ctx,
    stored: row.fund_tx,
    needed,
    save: async (tx) => {
      await sql`update app.launch_wallets set fund_tx = ${sql.json(tx as never)}, updated_at = now()
        where agent_id = ${agentId}`;
      kill("prepare-stored");
    },
  });
  await sql`update app.launch_wallets set status = 'ready', lease_until = null, updated_at = now()
    where agent_id = ${agentId}`;
  kill("prepare-funded");
  return true;
}
