// The dividend keeper: claims holders' dividends for wallets that opted in, with four.meme's
// `claimFee(accounts)` (anyone may claim on a holder's behalf; each account is paid its own,
// fourmeme-docs docs/tax-guide.md "Claims"), from the relayer, within a daily gas budget.
import { type Address, parseTransaction, type TransactionReceipt } from "viem";
import type { Sql } from "../../lib/db/client.ts";
import { view } from "../../lib/db/views.ts";
import { claimFeeData, readClaimable } from "../../lib/dividends.ts";
import { type Relayer, rebroadcastRelayerTxs, type StoredTx } from "../../lib/relayer/nonce.ts";
import { sendRelayerTxs } from "../../lib/relayer/send.ts";
import { waitRelayerTx } from "../../lib/relayer/wait.ts";
import { DIVIDEND_KEEPER } from "../limits.ts";

export type KeeperBudget = {
  minClaimWei: bigint;
  dailyBudgetWei: bigint;
  maxTxsPerRound: number;
  maxAccountsPerTx: number;
};

export type RunDividendKeeperParameters = {
  relayer: Relayer;
  viewsSchema: string;
  budget?: KeeperBudget;
  /** Tests: runs once a round's claims are stored, before they are broadcast (a kill there). */
  afterSave?: () => Promise<void>;
};
export type RunDividendKeeperReturnType = {
  /** Claims of earlier rounds settled now (mined, reverted or dropped). */
  settled: number;
  /** Claims this round signed. */
  sent: { token: Address; accounts: Address[]; hash: string }[];
  /** Why nothing new was signed, if so. */
  held?: "pending" | "budget";
};

type OpenRow = { id: string; tx_hash: `0x${string}`; raw: `0x${string}`; nonce: number };

/**
 * One round: first settle every claim an earlier round (or a killed process) stored, re-sending
 * the same bytes; while one is still unmined, sign nothing new. Then, within what is left of the
 * last 24 hours' gas budget, one `claimFee(accounts)` per token for the opted-in accounts it
 * owes at least `minClaimWei` (the token's `claimableFee`, read now). Each claim is stored before
 * it is broadcast, so a crash at any point loses nothing and never signs a claim twice.
 *
 * @example
 * const r = await runDividendKeeper({ relayer, viewsSchema: "onchain" });
 */
export async function runDividendKeeper(
  p: RunDividendKeeperParameters,
): Promise<RunDividendKeeperReturnType> {
  const r = p.relayer;
  const b = p.budget ?? DIVIDEND_KEEPER;
  const open = await r.sql<OpenRow[]>`select id::text, tx_hash, raw, nonce
    from app.dividend_claim_txs where status = 'sent' order by nonce`;
  const stored = open.map((o) => ({ hash: o.tx_hash, raw: o.raw, nonce: o.nonce }));
  await rebroadcastRelayerTxs(r, stored);
  const settled = await settle(r, stored);
  if (settled < open.length) return { settled, sent: [], held: "pending" };

  const [spent] = await r.sql<
    { s: string }[]
  >`select coalesce(sum(coalesce(fee, max_fee)), 0)::text as s
    from app.dividend_claim_txs where created_at > now() - interval '1 day' and status <> 'dropped'`;
  let left = b.dailyBudgetWei - BigInt(spent?.s ?? "0");
  if (left <= 0n) return { settled, sent: [], held: "budget" };

  const pairs = await r.sql<{ token: Address; account: Address }[]>`select h.token, h.account
    from app.dividend_auto_claims a
    join ${view(r.sql, p.viewsSchema, "holder")} h on h.account = a.address
    join ${view(r.sql, p.viewsSchema, "token_tax")} x on x.token = h.token and x.quote_holder > x.claimed
    order by h.token, h.account limit ${DIVIDEND_KEEPER.maxPairsPerRound}`;
  const owed = await readClaimable({ client: r.client, pairs });
  const byToken = new Map<Address, { accounts: Address[]; claimable: bigint }[]>();
  for (const [i, x] of pairs.entries()) {
    const wei = owed[i] as bigint;
    if (wei < b.minClaimWei) continue;
    const chunks = byToken.get(x.token) ?? [];
    const last = chunks.at(-1);
    if (last && last.accounts.length < b.maxAccountsPerTx) {
      last.accounts.push(x.account);
      last.claimable += wei;
    } else chunks.push({ accounts: [x.account], claimable: wei });
    byToken.set(x.token, chunks);
  }
  const gasPrice = await r.client.getGasPrice();
  const calls: { token: Address; accounts: Address[]; claimable: bigint }[] = [];
  for (const [token, chunks] of byToken) {
    for (const c of chunks) {
      if (calls.length >= b.maxTxsPerRound) break;
      const gas = await r.client.estimateGas({
        account: r.relayer.address,
        to: token,
        data: claimFeeData(c.accounts),
      });
      // The relayer signs 1.2 x the estimate: the most the claim can cost.
      const maxFee = ((gas * 12n) / 10n) * gasPrice;
      if (maxFee > left) break;
      left -= maxFee;
      calls.push({ token, ...c });
    }
  }
  if (calls.length === 0)
    return { settled, sent: [], held: byToken.size > 0 ? "budget" : undefined };

  const txs = await sendRelayerTxs(
    r,
    calls.map((c) => ({ to: c.token, data: claimFeeData(c.accounts) })),
    async (signed) => {
      for (const [i, t] of signed.entries()) {
        const c = calls[i] as (typeof calls)[number];
        const tx = parseTransaction(t.raw);
        const maxFee = (tx.gas ?? 0n) * (tx.gasPrice ?? 0n);
        await r.sql`insert into app.dividend_claim_txs (token, accounts, claimable, nonce, tx_hash, raw, max_fee)
          values (${c.token.toLowerCase()}, ${c.accounts.map((a) => a.toLowerCase())},
            ${c.claimable.toString()}, ${t.nonce}, ${t.hash}, ${t.raw}, ${maxFee.toString()})`;
      }
      await p.afterSave?.();
    },
  );
  await settle(r, txs);
  return {
    settled,
    sent: txs.map((t, i) => ({ ...(calls[i] as (typeof calls)[number]), hash: t.hash })),
  };
}

/** Waits for each stored claim and records its outcome; returns how many were settled. */
async function settle(r: Relayer, txs: StoredTx[]): Promise<number> {
  let n = 0;
  for (const t of txs) {
    const out = await waitRelayerTx(r, t, {
      timeoutMs: DIVIDEND_KEEPER.receiptWaitMs,
      pollMs: DIVIDEND_KEEPER.receiptPollMs,
    });
    if (out.kind === "pending") continue;
    const receipt: TransactionReceipt | undefined = out.kind === "mined" ? out.receipt : undefined;
    const status = !receipt ? "dropped" : receipt.status === "success" ? "mined" : "reverted";
    const fee = receipt ? receipt.gasUsed * receipt.effectiveGasPrice : 0n;
    await r.sql`update app.dividend_claim_txs set status = ${status}, fee = ${fee.toString()},
      settled_at = now() where tx_hash = ${t.hash} and status = 'sent'`;
    n++;
  }
  return n;
}
