import type { Sql } from "../db/client.ts";
import { view } from "../db/views.ts";
import { LAUNCH_REPORT } from "../limits.ts";

// A registered token's launch report, from the indexer's views: who bought in its first blocks,
// how much of the supply they took, which of them one address funded with BNB just before (a
// bundle), and the creator's own buys apart. The API serves it; the chain projector announces
// it once final (`launch.report`). Every figure is the index's: trades from TokenPurchase logs,
// funding from the transactions the indexer read (src/launch-funding.ts).

/** BNB sent to a buyer just before its first buy (wei strings). */
export type Funding = { funder: string; amount: string; blockNumber: string; txHash: string };

/** One account's buys in the window. */
export type LaunchBuyer = {
  account: string;
  buys: number;
  /** Block of its first buy; 0 = the creation block. */
  firstBlockOffset: number;
  tokenAmount: string;
  bnbAmount: string;
  /** tokenAmount / totalSupply, basis points, floored. */
  shareBps: number;
  fundedBy: Funding[];
};

/** Several early buyers funded by one address just before their buys. */
export type Bundle = {
  funder: string;
  /** The token's creator (the agent's wallet) funded them. */
  funderIsCreator: boolean;
  wallets: string[];
  fundedWei: string;
  tokenAmount: string;
  bnbAmount: string;
  shareBps: number;
};

export type LaunchReport = {
  token: string;
  creator: string;
  createdBlock: string;
  createdAt: string;
  createdTx: string;
  /** Created in four.meme's AntiSniperFeeMode; null where the index did not read it. */
  antiSniper: boolean | null;
  windowBlocks: number;
  windowEndBlock: string;
  fundingLookbackBlocks: number;
  /** The index is past the window: nothing will change the report (short of a reorg). */
  final: boolean;
  indexedBlock: string;
  totalSupply: string;
  /** The creator's own buys in the window (its first buy at launch among them); null: none. */
  creatorBuy: Omit<LaunchBuyer, "account" | "fundedBy"> | null;
  /** Every other buyer in the window, largest first. */
  buyers: LaunchBuyer[];
  bundles: Bundle[];
  totals: {
    buyers: number;
    tokenAmount: string;
    bnbAmount: string;
    shareBps: number;
    bundledWallets: number;
    bundledTokenAmount: string;
    bundledShareBps: number;
  };
};

type TokenRow = {
  creator: string;
  created_block: string | null;
  created_at: string | null;
  created_tx: string | null;
  total_supply: string;
  anti_sniper: boolean | null;
  origin: string;
};
type BuyRow = {
  account: string;
  buys: number;
  first_block: string;
  token_amount: string;
  bnb_amount: string;
};
type FundingRow = {
  wallet: string;
  funder: string;
  amount: string;
  block_number: string;
  tx_hash: string;
};

export type ReadLaunchReportParameters = {
  sql: Sql;
  schema: string;
  /** Lowercase token address. */
  token: string;
  /** The newest block the views hold: past the window, the report is final. */
  indexedBlock: bigint;
};

/**
 * The launch report of a registered token, or null if the index has no created agent token at
 * that address (unknown, a deposit launch's token, or registered but not created yet).
 *
 * @example
 * const report = await readLaunchReport({ sql, schema: "onchain", token, indexedBlock: 120n });
 */
export async function readLaunchReport(
  p: ReadLaunchReportParameters,
): Promise<LaunchReport | null> {
  const { sql } = p;
  const v = (name: string) => view(sql, p.schema, name);
  const [tok] = await sql<TokenRow[]>`
    select creator, created_block::text, created_at::text, created_tx, total_supply::text,
      anti_sniper, origin::text
    from ${v("token")} where address = ${p.token}`;
  if (tok?.origin !== "registry" || tok.created_block === null) return null;
  const created = BigInt(tok.created_block);
  const end = created + BigInt(LAUNCH_REPORT.windowBlocks);
  const [buys, funding] = await Promise.all([
    sql<BuyRow[]>`
      select account, count(*)::int as buys, min(block_number)::text as first_block,
        sum(token_amount)::text as token_amount, sum(bnb_amount)::text as bnb_amount
      from ${v("trade")}
      where token = ${p.token} and venue = 'curve' and side = 'buy'
        and block_number between ${created.toString()}::numeric and ${end.toString()}::numeric
      group by account`,
    sql<FundingRow[]>`
      select wallet, funder, amount::text, block_number::text, tx_hash
      from ${v("launch_funding")} where token = ${p.token}
      order by block_number, tx_hash`,
  ]);
  const supply = BigInt(tok.total_supply);
  const share = (amount: bigint) => (supply === 0n ? 0 : Number((amount * 10_000n) / supply));
  const fundedBy = new Map<string, Funding[]>();
  for (const f of funding) {
    const list = fundedBy.get(f.wallet) ?? [];
    list.push({
      funder: f.funder,
      amount: f.amount,
      blockNumber: f.block_number,
      txHash: f.tx_hash,
    });
    fundedBy.set(f.wallet, list);
  }
  const row = (b: BuyRow) => ({
    buys: b.buys,
    firstBlockOffset: Number(BigInt(b.first_block) - created),
    tokenAmount: b.token_amount,
    bnbAmount: b.bnb_amount,
    shareBps: share(BigInt(b.token_amount)),
  });
  const mine = buys.find((b) => b.account === tok.creator);
  const buyers: LaunchBuyer[] = buys
    .filter((b) => b.account !== tok.creator)
    .map((b) => ({ account: b.account, ...row(b), fundedBy: fundedBy.get(b.account) ?? [] }))
    .sort((a, b) => cmp(BigInt(b.tokenAmount), BigInt(a.tokenAmount)) || cmp(a.account, b.account));
  const bundles = bundlesOf(buyers, tok.creator, share);
  const sum = (xs: bigint[]) => xs.reduce((s, x) => s + x, 0n);
  const bought = sum(buyers.map((b) => BigInt(b.tokenAmount)));
  const bundled = buyers.filter((b) => bundles.some((u) => u.wallets.includes(b.account)));
  const bundledTokens = sum(bundled.map((b) => BigInt(b.tokenAmount)));
  return {
    token: p.token,
    creator: tok.creator,
    createdBlock: created.toString(),
    createdAt: new Date(Number(tok.created_at) * 1000).toISOString(),
    createdTx: tok.created_tx as string,
    antiSniper: tok.anti_sniper,
    windowBlocks: LAUNCH_REPORT.windowBlocks,
    windowEndBlock: end.toString(),
    fundingLookbackBlocks: LAUNCH_REPORT.fundingLookbackBlocks,
    final: p.indexedBlock >= end,
    indexedBlock: p.indexedBlock.toString(),
    totalSupply: tok.total_supply,
    creatorBuy: mine ? row(mine) : null,
    buyers,
    bundles,
    totals: {
      buyers: buyers.length,
      tokenAmount: bought.toString(),
      bnbAmount: sum(buyers.map((b) => BigInt(b.bnbAmount))).toString(),
      shareBps: share(bought),
      bundledWallets: bundled.length,
      bundledTokenAmount: bundledTokens.toString(),
      bundledShareBps: share(bundledTokens),
    },
  };
}

/** Each address that funded at least LAUNCH_REPORT.bundleMinWallets of the buyers, and them. */
function bundlesOf(
  buyers: LaunchBuyer[],
  creator: string,
  share: (amount: bigint) => number,
): Bundle[] {
  const byFunder = new Map<string, { wallets: Set<string>; funded: bigint }>();
  for (const b of buyers) {
    for (const f of b.fundedBy) {
      const entry = byFunder.get(f.funder) ?? { wallets: new Set<string>(), funded: 0n };
      entry.wallets.add(b.account);
      entry.funded += BigInt(f.amount);
      byFunder.set(f.funder, entry);
    }
  }
  const bundles: Bundle[] = [];
  for (const [funder, { wallets, funded }] of byFunder) {
    if (wallets.size < LAUNCH_REPORT.bundleMinWallets) continue;
    const members = buyers.filter((b) => wallets.has(b.account));
    const tokens = members.reduce((s, b) => s + BigInt(b.tokenAmount), 0n);
    bundles.push({
      funder,
      funderIsCreator: funder === creator,
      wallets: members.map((b) => b.account),
      fundedWei: funded.toString(),
      tokenAmount: tokens.toString(),
      bnbAmount: members.reduce((s, b) => s + BigInt(b.bnbAmount), 0n).toString(),
      shareBps: share(tokens),
    });
  }
  return bundles.sort(
    (a, b) => cmp(BigInt(b.tokenAmount), BigInt(a.tokenAmount)) || cmp(a.funder, b.funder),
  );
}

const cmp = <T extends bigint | string>(a: T, b: T) => (a < b ? -1 : a > b ? 1 : 0);
