import type { Sql } from "postgres";
import { type Address, getAbiItem, type PublicClient } from "viem";
import { bnbUsdFeedAbi } from "../../abis/BnbUsdFeed.ts";
import { uniswapV2PairAbi } from "../../abis/UniswapV2Pair.ts";
import type { DeploymentRecord } from "../../devnet/record.ts";

// The market-data columns recomputed from the feed's and pairs' logs and from the
// trade rows checkIndex has already proven equal to the chain. Shares no code with src/.

const WAD = 10n ** 18n;
const INTERVALS = [60n, 300n, 900n, 3600n, 14400n, 86400n];
const NAMES = ["1m", "5m", "15m", "1h", "4h", "1d"];
const s = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** Feed answers in chain order, rescaled to 1e18 = 1 USD. */
export async function feedRates(client: PublicClient, record: DeploymentRecord) {
  const logs = await client.getLogs({
    address: record.contracts.bnbUsdFeed,
    event: getAbiItem({ abi: bnbUsdFeedAbi, name: "AnswerUpdated" }),
    fromBlock: BigInt(record.deployedAtBlock),
    toBlock: "latest",
  });
  const decimals = await client.readContract({
    address: record.contracts.bnbUsdFeed,
    abi: bnbUsdFeedAbi,
    functionName: "decimals",
  });
  return logs
    .filter((l) => (l.args.current ?? 0n) > 0n)
    .map((l) => ({
      block: l.blockNumber,
      logIndex: l.logIndex,
      rate: ((l.args.current as bigint) * WAD) / 10n ** BigInt(decimals),
    }));
}

/** The rate current at a log position: the last answer strictly before it. */
export function rateAt(
  rates: { block: bigint; logIndex: number; rate: bigint }[],
  block: bigint,
  logIndex: number,
): bigint | null {
  let r: bigint | null = null;
  for (const x of rates) {
    if (x.block < block || (x.block === block && x.logIndex < logIndex)) r = x.rate;
  }
  return r;
}

/**
 * Compares trade USD rates, USD candles (all six intervals), token liquidity, last trade time and
 * the latest rate with the chain. Returns the mismatches (empty when exact).
 */
export async function checkMarket(p: {
  sql: Sql;
  schema: string;
  client: PublicClient;
  record: DeploymentRecord;
}): Promise<string[]> {
  const { sql, schema, client, record } = p;
  const bad: string[] = [];
  const eq = (what: string, got: unknown, want: unknown) => {
    if (s(got) !== s(want)) bad.push(`${what}: indexed ${s(got)}, chain ${s(want)}`);
  };
  const q = (t: string) => sql.unsafe(`select * from "${schema}"."${t}"`);
  const rates = await feedRates(client, record);
  const trades = (await q("trade")).sort(
    (a, b) => Number(BigInt(a.block_number) - BigInt(b.block_number)) || a.log_index - b.log_index,
  );
  type K = { o: bigint; h: bigint; l: bigint; c: bigint; v: bigint } | null;
  const want = new Map<string, { usd: K; vol: bigint }>();
  for (const t of trades) {
    const rate = rateAt(rates, BigInt(t.block_number), t.log_index);
    eq(`trade ${t.id} bnb_usd`, t.bnb_usd, rate);
    const ts = BigInt(t.timestamp);
    for (const [i, sec] of INTERVALS.entries()) {
      const key = `${t.token}|${NAMES[i]}|${ts - (ts % sec)}`;
      const k = want.get(key) ?? { usd: null, vol: 0n };
      want.set(key, k);
      if (rate === null) continue;
      const pu = (BigInt(t.price) * rate) / WAD;
      k.vol += (BigInt(t.bnb_amount) * rate) / WAD;
      k.usd = k.usd
        ? {
            o: k.usd.o,
            h: pu > k.usd.h ? pu : k.usd.h,
            l: pu < k.usd.l ? pu : k.usd.l,
            c: pu,
            v: 0n,
          }
        : { o: pu, h: pu, l: pu, c: pu, v: 0n };
    }
  }
  const candles = await q("candle");
  eq("candle count", candles.length, want.size);
  for (const r of candles) {
    const key = `${r.token}|${r.interval}|${r.bucket_start}`;
    const k = want.get(key);
    if (!k) {
      bad.push(`candle ${key} unexpected`);
      continue;
    }
    eq(`candle ${key} open_usd`, r.open_usd, k.usd?.o);
    eq(`candle ${key} high_usd`, r.high_usd, k.usd?.h);
    eq(`candle ${key} low_usd`, r.low_usd, k.usd?.l);
    eq(`candle ${key} close_usd`, r.close_usd, k.usd?.c);
    eq(`candle ${key} volume_usd`, r.volume_usd, k.vol);
  }
  const latest = rates.at(-1);
  const [l] = await q("bnb_usd_latest");
  eq("bnb_usd_latest rate", l?.rate, latest?.rate);
  const tokenRows = await q("token");
  const byToken = new Map(tokenRows.map((t) => [t.address as string, t]));
  const curve = record.contracts.tokenManager2.toLowerCase();
  for (const h of await q("holder")) {
    const t = byToken.get(h.token);
    const want =
      h.account === "0x000000000000000000000000000000000000dead"
        ? "burn"
        : h.account === curve
          ? "curve"
          : h.account === t?.pair
            ? "pair"
            : h.account === t?.launch_vault
              ? "vault"
              : // The tax token's own balance is its kept tax, not a holder's.
                h.account === h.token
                ? "tax"
                : null;
    eq(`holder ${h.token} ${h.account} role`, h.role, want);
  }
  for (const tok of tokenRows) {
    const mine = trades.filter((t) => t.token === tok.address);
    eq(`token ${tok.address} last_trade_at`, tok.last_trade_at, mine.at(-1)?.timestamp);
    const code = await client.getCode({ address: tok.pair as Address });
    if (!code || code === "0x") {
      eq(`token ${tok.address} liquidity_bnb`, tok.liquidity_bnb, null);
      continue;
    }
    const [r0, r1] = await client.readContract({
      address: tok.pair as Address,
      abi: uniswapV2PairAbi,
      functionName: "getReserves",
    });
    const is0 = (tok.address as string) < record.contracts.wbnb.toLowerCase();
    eq(`token ${tok.address} liquidity_bnb`, tok.liquidity_bnb, is0 ? r1 : r0);
    eq(`token ${tok.address} liquidity_token`, tok.liquidity_token, is0 ? r0 : r1);
  }
  return bad;
}
