import type { Sql } from "postgres";
import {
  type Address,
  BlockNotFoundError,
  erc20Abi,
  getAbiItem,
  type Hex,
  type PublicClient,
  zeroAddress,
} from "viem";
import { identityRegistryDevnetAbi } from "../../abis/IdentityRegistryDevnet.ts";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { launchVaultAbi } from "../../abis/LaunchVault.ts";
import { serviceRegistryAbi } from "../../abis/ServiceRegistry.ts";
import { taxTokenAbi } from "../../abis/TaxToken.ts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { uniswapV2PairAbi } from "../../abis/UniswapV2Pair.ts";
import type { DeploymentRecord } from "../../devnet/record.ts";
import { LAUNCH_REPORT } from "../../lib/limits.ts";

// An independent recomputation of the indexer's tables from raw logs (eth_getLogs) and contract
// reads. It shares no code with src/: a bug there cannot hide here.

const WAD = 10n ** 18n;
const DEAD = "0x000000000000000000000000000000000000dead";
const INTERVALS = {
  "1m": 60n,
  "5m": 300n,
  "15m": 900n,
  "1h": 3600n,
  "4h": 14400n,
  "1d": 86400n,
} as const;
const lc = (a: string) => a.toLowerCase() as Address;
const s = (v: unknown) => (v === null || v === undefined ? null : String(v));

export type CheckIndexParameters = {
  sql: Sql;
  schema: string;
  client: PublicClient;
  record: DeploymentRecord;
  /** Tokens that must have no row at all. */
  absent?: Address[];
};

/** Every table a fresh index of the same chain must reproduce exactly, rows sorted. */
export async function dumpTables(sql: Sql, schema: string) {
  const tables = ["token", "trade", "candle", "holder", "identity", "identity_change", "launch"];
  tables.push("depositor", "launch_event", "wallet_activity", "watched_wallet", "bnb_usd");
  tables.push("bnb_usd_latest", "launch_buyer", "launch_funding");
  const out: Record<string, unknown[]> = {};
  for (const t of tables) {
    const rows = await sql.unsafe(`select * from "${schema}"."${t}"`);
    out[t] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

/**
 * Compares the index in `schema` with the chain. Returns the mismatches (empty when exact).
 *
 * @example
 * expect(await checkIndex({ sql, schema: "s1", client, record })).toEqual([]);
 */
export async function checkIndex(p: CheckIndexParameters): Promise<string[]> {
  const { sql, schema, client, record } = p;
  const c = record.contracts;
  const bad: string[] = [];
  const eq = (what: string, got: unknown, want: unknown) => {
    if (s(got) !== s(want)) bad.push(`${what}: indexed ${s(got)}, chain ${s(want)}`);
  };
  const fromBlock = BigInt(record.deployedAtBlock);
  const logs = (address: Address | Address[], name: string, abi: readonly unknown[]) =>
    client.getLogs({
      address,
      // biome-ignore lint/suspicious/noExplicitAny: event picked by name from several ABIs
      event: getAbiItem({ abi: abi as any, name }) as any,
      fromBlock,
      toBlock: "latest",
      // biome-ignore lint/suspicious/noExplicitAny: decoded args are read by name below
    }) as Promise<any[]>;
  const q = (table: string) => sql.unsafe(`select * from "${schema}"."${table}"`);

  // Which tokens are the service's.
  const registered = await logs(c.serviceRegistry, "ServiceTokenRegistered", serviceRegistryAbi);
  const launches = await logs(c.launchFactory, "LaunchCreated", launchFactoryAbi);
  const tokens = new Map<Address, { pair: Address; vault?: Address; treasury: Address }>();
  for (const l of registered) {
    tokens.set(lc(l.args.token), { pair: lc(l.args.pair), treasury: lc(l.args.treasury) });
  }
  const executed = await logs(
    launches.map((l) => l.args.vault),
    "LaunchExecuted",
    launchVaultAbi,
  );
  for (const l of launches) {
    const ex = executed.find((e) => lc(e.address) === lc(l.args.vault));
    tokens.set(lc(l.args.predictedToken), {
      pair: ex ? lc(ex.args.pair) : lc(zeroAddress),
      vault: lc(l.args.vault),
      treasury: lc(l.args.treasury),
    });
  }
  const tokenRows = new Map((await q("token")).map((r) => [r.address as Address, r]));
  eq("token set", [...tokenRows.keys()].sort().join(","), [...tokens.keys()].sort().join(","));
  for (const a of p.absent ?? []) {
    if (tokenRows.has(lc(a))) bad.push(`unregistered token ${a} has a row`);
    const [n] = await sql.unsafe(
      `select (select count(*) from "${schema}".trade where token = $1) + (select count(*) from "${schema}".holder where token = $1) as n`,
      [lc(a)],
    );
    if (Number(n?.n) !== 0) bad.push(`unregistered token ${a} has trades or holders`);
  }

  // Trades, from the curve's and the pairs' logs.
  type T = Record<string, string | number> & { token: Address; block: bigint };
  const want: T[] = [];
  const blocks = new Map<bigint, bigint>();
  const ts = async (n: bigint) => {
    if (!blocks.has(n)) blocks.set(n, (await client.getBlock({ blockNumber: n })).timestamp);
    return blocks.get(n) as bigint;
  };
  for (const name of ["TokenPurchase", "TokenSale"]) {
    for (const l of await logs(c.tokenManager2, name, tokenManager2Abi)) {
      const token = lc(l.args.token);
      if (!tokens.has(token) || l.args.amount === 0n) continue;
      want.push({
        id: `56:${l.transactionHash}:${l.logIndex}`,
        token,
        block: l.blockNumber,
        venue: "curve",
        side: name === "TokenPurchase" ? "buy" : "sell",
        account: lc(l.args.account),
        token_amount: String(l.args.amount),
        bnb_amount: String(l.args.cost),
        fee: String(l.args.fee),
        price: String((l.args.cost * WAD) / l.args.amount),
        spot: String(l.args.price),
        log_index: l.logIndex,
      });
    }
  }
  for (const [token, t] of tokens) {
    if (t.pair === lc(zeroAddress)) continue;
    const syncs = await logs(t.pair, "Sync", uniswapV2PairAbi);
    // Token transfers into the pair: a sell whose tokens came from the token itself is the
    // token selling its collected tax (a dispatch), not the transaction's sender.
    const into = (await logs(token, "Transfer", taxTokenAbi)).filter(
      (l) => lc(l.args.to) === t.pair,
    );
    for (const l of await logs(t.pair, "Swap", uniswapV2PairAbi)) {
      const is0 = token < lc(c.wbnb);
      const a = l.args;
      const [tIn, tOut, bIn, bOut] = (is0
        ? [a.amount0In, a.amount0Out, a.amount1In, a.amount1Out]
        : [a.amount1In, a.amount1Out, a.amount0In, a.amount0Out]) as bigint[] as [
        bigint,
        bigint,
        bigint,
        bigint,
      ];
      const buy = tOut > tIn;
      const amount: bigint = buy ? tOut - tIn : tIn - tOut;
      const bnb: bigint = buy ? bIn - bOut : bOut - bIn;
      const sync = syncs.find(
        (y) => y.transactionHash === l.transactionHash && y.logIndex === l.logIndex - 1,
      );
      const [rt, rb] = is0
        ? [sync.args.reserve0, sync.args.reserve1]
        : [sync.args.reserve1, sync.args.reserve0];
      const tx = await client.getTransaction({ hash: l.transactionHash });
      const sender = into
        .filter((x) => x.transactionHash === l.transactionHash && x.logIndex < l.logIndex)
        .at(-1);
      const taxSale = !buy && sender !== undefined && lc(sender.args.from) === token;
      want.push({
        id: `56:${l.transactionHash}:${l.logIndex}`,
        token,
        block: l.blockNumber,
        venue: "dex",
        side: buy ? "buy" : "sell",
        account: taxSale ? token : lc(tx.from),
        token_amount: String(amount),
        bnb_amount: String(bnb),
        fee: "0",
        price: String((bnb * WAD) / amount),
        spot: String((BigInt(rb) * WAD) / BigInt(rt)),
        log_index: l.logIndex,
      });
    }
  }
  want.sort((x, y) => Number(x.block - y.block) || Number(x.log_index) - Number(y.log_index));
  const got = new Map((await q("trade")).map((r) => [r.id as string, r]));
  eq("trade count", got.size, want.length);
  for (const w of want) {
    const r = got.get(w.id as string);
    if (!r) {
      bad.push(`trade ${w.id} missing`);
      continue;
    }
    for (const k of [
      "venue",
      "side",
      "account",
      "token_amount",
      "bnb_amount",
      "fee",
      "price",
      "spot",
    ]) {
      eq(`trade ${w.id} ${k}`, r[k], w[k]);
    }
    eq(`trade ${w.id} block`, r.block_number, w.block);
    eq(`trade ${w.id} timestamp`, r.timestamp, await ts(w.block));
  }

  // Candles, recomputed from those trades.
  const candles = new Map<string, Record<string, bigint | number>>();
  for (const w of want) {
    const time = await ts(w.block);
    const price = BigInt(w.price as string);
    for (const [interval, sec] of Object.entries(INTERVALS)) {
      const key = `${w.token}|${interval}|${time - (time % sec)}`;
      const k = candles.get(key);
      if (!k) {
        candles.set(key, {
          open: price,
          high: price,
          low: price,
          close: price,
          volume_bnb: BigInt(w.bnb_amount as string),
          volume_token: BigInt(w.token_amount as string),
          trade_count: 1,
        });
        continue;
      }
      k.high = price > (k.high as bigint) ? price : (k.high as bigint);
      k.low = price < (k.low as bigint) ? price : (k.low as bigint);
      k.close = price;
      k.volume_bnb = (k.volume_bnb as bigint) + BigInt(w.bnb_amount as string);
      k.volume_token = (k.volume_token as bigint) + BigInt(w.token_amount as string);
      k.trade_count = (k.trade_count as number) + 1;
    }
  }
  const candleRows = await q("candle");
  eq("candle count", candleRows.length, candles.size);
  for (const r of candleRows) {
    const key = `${r.token}|${r.interval}|${r.bucket_start}`;
    const k = candles.get(key);
    if (!k) bad.push(`candle ${key} unexpected`);
    else for (const f of Object.keys(k)) eq(`candle ${key} ${f}`, r[f], k[f]);
  }

  // Holders and token state.
  const created = new Set(
    (await logs(c.tokenManager2, "TokenCreate", tokenManager2Abi)).map((l) => lc(l.args.token)),
  );
  const holderRows = await q("holder");
  for (const [token, t] of tokens) {
    const row = tokenRows.get(token);
    const balances = new Map<Address, bigint>();
    for (const l of await logs(token, "Transfer", taxTokenAbi)) {
      const [from, to, v] = [lc(l.args.from), lc(l.args.to), l.args.value as bigint];
      if (from !== lc(zeroAddress)) balances.set(from, (balances.get(from) ?? 0n) - v);
      if (to !== lc(zeroAddress)) balances.set(to, (balances.get(to) ?? 0n) + v);
    }
    const excluded = new Set([DEAD, lc(c.tokenManager2), t.pair, t.vault, token]);
    let holders = 0;
    for (const [account, bal] of balances) {
      const onChain = await client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [account],
      });
      eq(`balanceOf ${token} ${account} (logs vs contract)`, bal, onChain);
      const h = holderRows.find((r) => r.token === token && r.account === account);
      eq(`holder ${token} ${account}`, h?.balance ?? 0n, onChain);
      if (onChain > 0n && !excluded.has(account)) holders++;
    }
    if (!row) continue;
    eq(`token ${token} holderCount`, row.holder_count, holders);
    const mine = want.filter((w) => w.token === token);
    eq(`token ${token} tradeCount`, row.trade_count, mine.length);
    eq(
      `token ${token} volume`,
      row.total_volume_bnb,
      mine.reduce((a, w) => a + BigInt(w.bnb_amount as string), 0n),
    );
    const last = mine.at(-1);
    if (last) {
      eq(`token ${token} lastPrice`, row.last_price, last.spot);
      eq(
        `token ${token} marketCap`,
        row.market_cap_bnb,
        (BigInt(last.spot as string) * BigInt(row.total_supply)) / WAD,
      );
    }
    if (t.vault) continue;
    if (!created.has(token)) {
      // Registered, never created (the registry refuses that now; an entry of the older order,
      // written before its createToken, could be): the index keeps the registration alone.
      eq(`token ${token} status`, row.status, "registered");
      eq(`token ${token} createdBlock`, row.created_block, null);
      continue;
    }
    const info = await client.readContract({
      address: c.tokenManager2,
      abi: tokenManager2Abi,
      functionName: "_tokenInfos",
      args: [token],
    });
    eq(`token ${token} offers`, row.offers, info[7]);
    eq(`token ${token} funds`, row.funds, info[8]);
    eq(`token ${token} maxRaising`, row.max_raising, info[5]);
    eq(`token ${token} status`, row.status, info[12] === 3n ? "graduated" : "curve");
    if (info[12] !== 3n) eq(`token ${token} curve lastPrice`, row.last_price, info[9]);
  }

  // Tax income, from the tax tokens' own events: each FeeDispatched pays the token's recipient
  // (founder) `quoteFounder` BNB; each FeeClaimed pays a holder. Income is what reached the
  // treasuries and the wallets the index watches.
  const watched = new Set((await q("watched_wallet")).map((r) => r.address as Address));
  const income = new Map<string, { wallet: Address; token: Address; amount: bigint }>();
  for (const [token, t] of tokens) {
    if (!t.vault && !created.has(token)) continue;
    if (t.vault && t.pair === lc(zeroAddress)) continue;
    const founder = lc(
      (await client.readContract({
        address: token,
        abi: taxTokenAbi,
        functionName: "founder",
      })) as string,
    );
    for (const l of await logs(token, "FeeDispatched", taxTokenAbi)) {
      if (l.args.quoteFounder === 0n) continue;
      // The index credits the registered treasury: it must be the token's recipient.
      eq(`token ${token} founder`, t.treasury, founder);
      income.set(`56:${l.transactionHash}:${l.logIndex}`, {
        wallet: founder,
        token,
        amount: l.args.quoteFounder,
      });
    }
    for (const l of await logs(token, "FeeClaimed", taxTokenAbi)) {
      const account = lc(l.args.account);
      if (l.args.amount === 0n || !watched.has(account)) continue;
      income.set(`56:${l.transactionHash}:${l.logIndex}`, {
        wallet: account,
        token,
        amount: l.args.amount,
      });
    }
  }
  const incomeRows = await sql.unsafe(
    `select id, wallet, token, amount from "${schema}".wallet_activity where kind = 'tax_income'`,
  );
  eq("tax income count", incomeRows.length, income.size);
  for (const r of incomeRows) {
    const w = income.get(r.id);
    if (!w) bad.push(`tax income ${r.id} unexpected`);
    else
      for (const k of ["wallet", "token", "amount"] as const)
        eq(`tax income ${r.id} ${k}`, r[k], w[k]);
  }
  const total = (rows: { wallet: string; amount: unknown }[], wallet: string) =>
    rows.filter((r) => r.wallet === wallet).reduce((a, r) => a + BigInt(String(r.amount)), 0n);
  for (const wallet of new Set([...income.values()].map((v) => v.wallet))) {
    eq(
      `tax income of ${wallet}`,
      total(incomeRows as never, wallet),
      total([...income.values()], wallet),
    );
  }

  // Launches: vault state and balances.
  const launchRows = new Map((await q("launch")).map((r) => [r.vault as Address, r]));
  const depositorRows = await q("depositor");
  const states = ["open", "closed", "launched", "refund"];
  for (const l of launches) {
    const vault = lc(l.args.vault);
    const row = launchRows.get(vault);
    if (!row) {
      bad.push(`launch ${vault} missing`);
      continue;
    }
    const read = (functionName: string, args: unknown[] = []) =>
      // biome-ignore lint/suspicious/noExplicitAny: view functions picked by name
      client.readContract({ address: vault, abi: launchVaultAbi, functionName, args } as any);
    eq(`launch ${vault} status`, row.status, states[Number(await read("state"))]);
    eq(`launch ${vault} totalDeposited`, row.total_deposited, await read("totalDeposited"));
    eq(`launch ${vault} depositorCount`, row.depositor_count, await read("depositorCount"));
    const balance = await client.getBalance({ address: vault });
    const held =
      row.status === "launched" ? 0n : BigInt(row.total_deposited) - BigInt(row.total_refunded);
    eq(`launch ${vault} BNB balance`, held, balance);
    for (const d of depositorRows.filter((r) => r.vault === vault)) {
      eq(`depositor ${vault} ${d.account}`, d.principal, await read("deposits", [d.account]));
    }
  }

  // Identities linked to service tokens.
  for (const r of await q("identity")) {
    const read = (functionName: string) =>
      client.readContract({
        address: c.identityRegistry,
        abi: identityRegistryDevnetAbi,
        // biome-ignore lint/suspicious/noExplicitAny: view functions picked by name
        functionName: functionName as any,
        args: [BigInt(r.agent_id)],
      } as never) as Promise<Hex | string>;
    eq(`identity ${r.agent_id} owner`, r.owner, lc((await read("ownerOf")) as string));
    eq(`identity ${r.agent_id} uri`, r.agent_uri, await read("tokenURI"));
    eq(
      `identity ${r.agent_id} wallet`,
      r.agent_wallet,
      lc((await read("getAgentWallet")) as string),
    );
  }

  // The launch report's facts: each registered token's buyers (not its creator) in its window,
  // and the plain BNB transfers to each in the blocks before its first buy (block by block).
  const wantBuyers: string[] = [];
  const wantFunding: string[] = [];
  const gone = new Set<bigint>();
  const window = BigInt(LAUNCH_REPORT.windowBlocks);
  const purchases = await logs(c.tokenManager2, "TokenPurchase", tokenManager2Abi);
  for (const created of await logs(c.tokenManager2, "TokenCreate", tokenManager2Abi)) {
    const token = lc(created.args.token);
    if (!registered.some((l) => lc(l.args.token) === token)) continue;
    const first = new Map<Address, { block: bigint; tx: Hex }>();
    for (const l of purchases) {
      const account = lc(l.args.account);
      if (lc(l.args.token) !== token || account === lc(created.args.creator)) continue;
      if (l.blockNumber > created.blockNumber + window || first.has(account)) continue;
      first.set(account, { block: l.blockNumber, tx: l.transactionHash });
    }
    for (const [account, buy] of first) {
      wantBuyers.push(`${token}:${account}:${buy.block}:${buy.tx}`);
      const low = buy.block - BigInt(LAUNCH_REPORT.fundingLookbackBlocks);
      for (let n = buy.block; n >= (low > 0n ? low : 0n); n--) {
        const b = await client
          .getBlock({ blockNumber: n, includeTransactions: true })
          .catch((error: unknown) => {
            if (!(error instanceof BlockNotFoundError)) throw error;
            // A devnet restarted from its state file keeps only recent blocks
            // (docs/devnet-state.md): what the indexer read there cannot be recomputed.
            gone.add(n);
            return undefined;
          });
        if (!b) continue;
        const at = b.transactions.findIndex((t) => t.hash === buy.tx);
        for (const [i, t] of b.transactions.entries()) {
          if (n === buy.block && i >= at) continue;
          if (t.to && lc(t.to) === account && t.value > 0n && lc(t.from) !== account)
            wantFunding.push(`${token}:${account}:${lc(t.from)}:${t.value}:${n}:${t.hash}`);
        }
      }
    }
  }
  const gotBuyers = (await q("launch_buyer")).map(
    (r) => `${r.token}:${r.account}:${r.first_buy_block}:${r.first_buy_tx}`,
  );
  eq("launch buyers", gotBuyers.sort().join(","), wantBuyers.sort().join(","));
  const gotFunding = (await q("launch_funding"))
    .filter((r) => !gone.has(BigInt(r.block_number)))
    .map((r) => `${r.token}:${r.wallet}:${r.funder}:${r.amount}:${r.block_number}:${r.tx_hash}`);
  eq("launch funding", gotFunding.sort().join(","), [...new Set(wantFunding)].sort().join(","));
  return bad;
}
