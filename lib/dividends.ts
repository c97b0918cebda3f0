// Holders' dividends of four.meme tax tokens (fourmeme-docs docs/tax-guide.md, "Claims"): what
// an account can claim is the token's own `claimableFee(account)`; `claimFee(address[])` may be
// sent by anyone and pays each listed account its own dividends. Shared by the API (a wallet's
// dividends and the transaction that claims them) and the keeper (claims for opted-in holders).
import { type Address, encodeFunctionData, type Hex, type PublicClient } from "viem";
import { multicall3Abi } from "../abis/Multicall3.ts";
import { taxTokenAbi } from "../abis/TaxToken.ts";
import { MULTICALL3_ADDRESS } from "./chain.ts";
import type { Sql } from "./db/client.ts";
import { view } from "./db/views.ts";

/** A service token whose holders were ever allocated dividends, as one account sees it. */
export type DividendToken = {
  token: Address;
  name: string | null;
  symbol: string | null;
  /** What the account has claimed of it (its `FeeClaimed` logs), BNB wei. */
  claimed: bigint;
};

/**
 * The service tokens `account` ever held whose tax has allocated dividends to holders
 * (a `FeeDispatched` with `quoteHolder` > 0), with what it claimed of each, by address; at most
 * `limit`. Only these can owe it dividends: a share needs a balance, and a balance a holder row.
 *
 * @example
 * const tokens = await dividendTokens(sql, "onchain", "0xabc…", 100);
 */
export async function dividendTokens(
  sql: Sql,
  schema: string,
  account: string,
  limit: number,
): Promise<DividendToken[]> {
  const rows = await sql<
    { token: Address; name: string | null; symbol: string | null; claimed: string }[]
  >`
    select h.token, t.name, t.symbol,
      (select coalesce(sum(c.amount), 0) from ${view(sql, schema, "dividend_claim")} c
        where c.account = h.account and c.token = h.token)::text as claimed
    from ${view(sql, schema, "holder")} h
    join ${view(sql, schema, "token_tax")} x on x.token = h.token and x.quote_holder > 0
    join ${view(sql, schema, "token")} t on t.address = h.token
    where h.account = ${account.toLowerCase()}
    order by h.token limit ${limit}`;
  return rows.map((r) => ({ ...r, claimed: BigInt(r.claimed) }));
}

export type ReadClaimableParameters = {
  client: PublicClient;
  pairs: readonly { token: Address; account: Address }[];
  /** The block to read at (the indexed one, so figures agree with the index); latest if unset. */
  blockNumber?: bigint;
};

/**
 * Each (token, account)'s `claimableFee`, in one Multicall3 read.
 *
 * @example
 * const [wei] = await readClaimable({ client, pairs: [{ token, account }], blockNumber });
 */
export async function readClaimable(p: ReadClaimableParameters): Promise<bigint[]> {
  if (p.pairs.length === 0) return [];
  return p.client.multicall({
    multicallAddress: MULTICALL3_ADDRESS,
    allowFailure: false,
    blockNumber: p.blockNumber,
    contracts: p.pairs.map((x) => ({
      address: x.token,
      abi: taxTokenAbi,
      functionName: "claimableFee",
      args: [x.account],
    })),
  }) as Promise<bigint[]>;
}

/**
 * The calldata of `claimFee(accounts)` on one token: anyone may send it; each account is paid.
 *
 * @example
 * const data = claimFeeData([holderA, holderB]);
 */
export function claimFeeData(accounts: readonly Address[]): Hex {
  return encodeFunctionData({ abi: taxTokenAbi, functionName: "claimFee", args: [accounts] });
}

/**
 * One transaction that claims `account`'s dividends on every token of `tokens`: a direct
 * `claimFee([account])` for one token, Multicall3's `aggregate3` over them for several. Any
 * wallet may send it (the dividends go to `account`).
 *
 * @example
 * const tx = claimTransaction("0xabc…", [tokenA, tokenB]); // { to: multicall3, data }
 */
export function claimTransaction(
  account: Address,
  tokens: readonly Address[],
): { to: Address; data: Hex } {
  const data = claimFeeData([account]);
  if (tokens.length === 1) return { to: tokens[0] as Address, data };
  return {
    to: MULTICALL3_ADDRESS,
    data: encodeFunctionData({
      abi: multicall3Abi,
      functionName: "aggregate3",
      args: [tokens.map((target) => ({ target, allowFailure: false, callData: data }))],
    }),
  };
}
