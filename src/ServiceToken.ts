// ERC-20 activity of service tokens: ServiceToken (registered in the ServiceRegistry) and
// LaunchToken (created by a deposit launch) share the TaxToken ABI (four.meme's type 5) and
// these handlers.
import { type Context, ponder } from "ponder:registry";
import { dividendClaim, holder, launch, token, tokenTax, watchedWallet } from "ponder:schema";
import { flushBlockCandles } from "./candles.ts";
import { curveAtCreation } from "./curve-state.ts";
import { type BlockReceipts, type RawLog, readBlockReceipts } from "./receipts.ts";
import { DEAD, type Hex, logId, lower, settings, WAD, ZERO } from "./settings.ts";
import { applyReceiptTrades, findTokenCreate } from "./trades.ts";
import { recordWalletActivity, TREASURY } from "./wallet-activity.ts";

type TokenRow = typeof token.$inferSelect;
type Block = { number: bigint; timestamp: bigint; hash: Hex; parentHash: Hex };

/**
 * Accounts that hold a token for the market rather than for themselves do not count as holders:
 * the zero and dead addresses, the curve contract, the token's DEX pair, its launch vault and the
 * token itself (the tax it keeps until a dispatch).
 */
function countsAsHolder(tok: TokenRow, account: Hex): boolean {
  return marketRole(tok, account) === null;
}

/** Why an account holds for the market rather than for itself; null for an ordinary holder. */
function marketRole(
  tok: TokenRow,
  account: Hex,
): "curve" | "pair" | "vault" | "burn" | "tax" | null {
  if (account === ZERO || account === DEAD) return "burn";
  if (account === settings.tokenManager2) return "curve";
  if (account === tok.pair) return "pair";
  if (account === tok.launchVault) return "vault";
  if (account === tok.address) return "tax";
  return null;
}

async function moveBalance(context: Context, tok: TokenRow, account: Hex, delta: bigint) {
  // One upsert (the store's cheapest way to a new balance): the row after it tells the one before.
  const row = await context.db
    .insert(holder)
    .values({ token: tok.address, account, balance: delta, role: marketRole(tok, account) })
    .onConflictDoUpdate((r) => ({ balance: r.balance + delta }));
  const after = row.balance;
  const before = after - delta;
  if (!countsAsHolder(tok, account) || (before === 0n) === (after === 0n)) return;
  const step = after === 0n ? -1 : 1;
  await context.db
    .update(token, { address: tok.address })
    .set((r) => ({ holderCount: r.holderCount + step }));
}

/** The mint: fill the token row from TokenCreate (curve tokens) or from its launch (vaults). */
async function onMint(
  context: Context,
  tok: TokenRow,
  to: Hex,
  receipts: BlockReceipts,
  block: Block,
  tx: Hex,
  logIndex: number,
) {
  if (tok.createdBlock !== null) return;
  if (tok.origin === "registry") {
    const created = findTokenCreate(receipts.logs(tx) ?? [], tok.address);
    // Ours only if the wallet the registry names created it.
    if (!created || lower(created.creator) !== tok.creator) return;
    const { info, feeSetting } = await curveAtCreation(context, tok.address, block, receipts);
    await context.db.update(token, { address: tok.address }).set({
      name: created.name,
      symbol: created.symbol,
      totalSupply: created.totalSupply,
      launchTime: created.launchTime,
      launchFee: created.launchFee,
      status: "curve",
      // The curve's state right after creation; each trade then moves it.
      offers: info[7],
      maxRaising: info[5],
      antiSniper: feeSetting > 0n,
      lastPrice: info[9],
      initialPrice: info[9],
      marketCapBnb: (info[9] * created.totalSupply) / WAD,
      createdBlock: block.number,
      createdAt: block.timestamp,
      createdTx: tx,
      createdLogIndex: logIndex,
    });
  } else {
    const l = await context.db.find(launch, { vault: to });
    await context.db.update(token, { address: tok.address }).set({
      name: l?.name ?? null,
      symbol: l?.symbol ?? null,
      createdBlock: block.number,
      createdAt: block.timestamp,
      createdTx: tx,
      createdLogIndex: logIndex,
    });
  }
}

/** A Transfer the market takes part in: the curve, the pair, or a mint. Only these read receipts. */
const touchesMarket = (tok: TokenRow, from: Hex, to: Hex) =>
  from === settings.tokenManager2 ||
  to === settings.tokenManager2 ||
  from === tok.pair ||
  to === tok.pair ||
  from === ZERO;

/** The token's market Transfers in the block, in log order. */
const marketTransfers = (receipts: BlockReceipts, tok: TokenRow) =>
  receipts.transfers(tok.address).filter((t) => touchesMarket(tok, t.from, t.to));

/** A Transfer of a service token (also replayed by src/before-registration.ts). */
export async function onTransfer(
  { event, context }: { event: TransferEvent; context: Context },
  origin: TokenRow["origin"],
) {
  const address = lower(event.log.address);
  const from = lower(event.args.from);
  const to = lower(event.args.to);
  const value = event.args.value;
  let tok = await context.db.find(token, { address });
  // A registered token has its row from its registration, which replays the logs before it
  // (src/before-registration.ts); a launch token gets it from its LaunchCreated. Anything else
  // is not ours, and each token is handled by the one contract (ServiceToken or LaunchToken) of
  // its origin.
  if (!tok || tok.origin !== origin) return;
  if (from === ZERO) tok = { ...tok, totalSupply: tok.totalSupply + value };
  if (from === ZERO && tok.origin === "launch") {
    await context.db.update(token, { address }).set({ totalSupply: tok.totalSupply });
  }
  const block = event.block as Block;
  if (touchesMarket(tok, from, to)) {
    const txHash = event.transaction.hash;
    const receipts = await readBlockReceipts(txHash, block);
    const logs = receipts.logs(txHash) as RawLog[];
    if (from === ZERO) {
      await onMint(context, tok, to, receipts, block, txHash, event.log.logIndex);
      tok = (await context.db.find(token, { address })) ?? tok;
    }
    // A transaction's trades of this token are applied once, at its first market Transfer of
    // the token (decided from the receipt, so no lookup of the trade rows), and the block's
    // candles of the token are written at its last one.
    const market = marketTransfers(receipts, tok);
    if (market.find((t) => t.tx === txHash)?.logIndex === event.log.logIndex) {
      await applyReceiptTrades(
        context,
        tok,
        logs,
        { hash: txHash, from: lower(event.transaction.from) },
        block,
      );
    }
    if (market.at(-1)?.logIndex === event.log.logIndex) {
      await flushBlockCandles(context, address, block);
    }
  }
  if (value !== 0n) {
    if (from !== ZERO) await moveBalance(context, tok, from, -value);
    if (to !== ZERO) await moveBalance(context, tok, to, value);
  }
  for (const [wallet, direction, counterparty] of [
    [from, "out", to],
    [to, "in", from],
  ] as const) {
    const w = await context.db.find(watchedWallet, { address: wallet });
    if (!w) continue;
    await recordWalletActivity(context, event, w, {
      wallet,
      suffix: direction,
      kind: direction === "in" ? "token_in" : "token_out",
      token: address,
      counterparty,
      amount: value,
    });
  }
}

export type TransferEvent = {
  args: { from: Hex; to: Hex; value: bigint };
  log: { address: Hex; logIndex: number };
  block: { number: bigint; timestamp: bigint; hash: Hex; parentHash: Hex };
  transaction: { hash: Hex; from: Hex };
};

ponder.on("ServiceToken:Transfer", (e) => onTransfer(e, "registry"));
ponder.on("LaunchToken:Transfer", (e) => onTransfer(e, "launch"));

/**
 * A dispatch of the tax a token kept (four.meme TaxToken, fourmeme-docs tax-guide.md): its split
 * is added to the token's tax totals; the recipient's share, paid in BNB at once
 * (`quoteFounder`), is tax income of the treasury the token was registered or launched with.
 */
export async function onFeeDispatched(
  { event, context }: { event: DispatchEvent; context: Context },
  origin: TokenRow["origin"],
) {
  const tok = await context.db.find(token, { address: lower(event.log.address) });
  if (!tok || tok.origin !== origin) return;
  const a = event.args;
  await context.db
    .insert(tokenTax)
    .values({
      token: tok.address,
      dispatchCount: 1,
      amountFounder: a.amountFounder,
      amountHolder: a.amountHolder,
      amountBurn: a.amountBurn,
      amountLiquidity: a.amountLiquidity,
      quoteFounder: a.quoteFounder,
      quoteHolder: a.quoteHolder,
      incomeBnb: a.quoteFounder + a.quoteHolder,
      claimCount: 0,
      claimed: 0n,
    })
    .onConflictDoUpdate((r) => ({
      dispatchCount: r.dispatchCount + 1,
      amountFounder: r.amountFounder + a.amountFounder,
      amountHolder: r.amountHolder + a.amountHolder,
      amountBurn: r.amountBurn + a.amountBurn,
      amountLiquidity: r.amountLiquidity + a.amountLiquidity,
      quoteFounder: r.quoteFounder + a.quoteFounder,
      quoteHolder: r.quoteHolder + a.quoteHolder,
      incomeBnb: r.incomeBnb + a.quoteFounder + a.quoteHolder,
    }));
  if (a.quoteFounder === 0n) return;
  await taxIncome(context, event, tok.treasury, a.quoteFounder);
}

/**
 * A holder's claim of its dividends (WBNB; anyone may claim on a holder's behalf, the amount
 * goes to the holder): added to the token's claimed total and the holder's claims, and tax
 * income for a wallet we watch.
 */
export async function onFeeClaimed(
  { event, context }: { event: ClaimEvent; context: Context },
  origin: TokenRow["origin"],
) {
  if (event.args.amount === 0n) return;
  const tok = await context.db.find(token, { address: lower(event.log.address) });
  if (!tok || tok.origin !== origin) return;
  const account = lower(event.args.account);
  const amount = event.args.amount;
  await context.db.insert(dividendClaim).values({
    id: logId(event.transaction.hash, event.log.logIndex),
    token: tok.address,
    account,
    amount,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    txHash: event.transaction.hash,
    timestamp: event.block.timestamp,
  });
  // A claim follows a dispatch to holders, which made the row; the values are a safe default.
  await context.db
    .insert(tokenTax)
    .values({
      token: tok.address,
      dispatchCount: 0,
      amountFounder: 0n,
      amountHolder: 0n,
      amountBurn: 0n,
      amountLiquidity: 0n,
      quoteFounder: 0n,
      quoteHolder: 0n,
      incomeBnb: 0n,
      claimCount: 1,
      claimed: amount,
    })
    .onConflictDoUpdate((r) => ({ claimCount: r.claimCount + 1, claimed: r.claimed + amount }));
  if (!(await context.db.find(watchedWallet, { address: account }))) return;
  await taxIncome(context, event, account, amount);
}

async function taxIncome(
  context: Context,
  event: DispatchEvent | ClaimEvent,
  wallet: Hex,
  amount: bigint,
) {
  const w = await context.db.find(watchedWallet, { address: wallet });
  await recordWalletActivity(context, event, w ?? TREASURY, {
    wallet,
    kind: "tax_income",
    token: lower(event.log.address),
    counterparty: lower(event.log.address),
    amount,
  });
}

type TaxLog = {
  log: { address: Hex; logIndex: number };
  block: { number: bigint; timestamp: bigint };
  transaction: { hash: Hex };
};
type DispatchEvent = TaxLog & {
  args: {
    amountFounder: bigint;
    amountHolder: bigint;
    amountBurn: bigint;
    amountLiquidity: bigint;
    quoteFounder: bigint;
    quoteHolder: bigint;
  };
};
type ClaimEvent = TaxLog & { args: { account: Hex; amount: bigint } };

ponder.on("ServiceToken:FeeDispatched", (e) => onFeeDispatched(e, "registry"));
ponder.on("LaunchToken:FeeDispatched", (e) => onFeeDispatched(e, "launch"));
ponder.on("ServiceToken:FeeClaimed", (e) => onFeeClaimed(e, "registry"));
ponder.on("LaunchToken:FeeClaimed", (e) => onFeeClaimed(e, "launch"));
