import { type Get, optional } from "./api-client.ts";
import type { SellPledge, TokenTax, WalletDividends } from "./holder-types.ts";
import type { HolderPanelsData } from "./pages/holders.ts";

/**
 * The agent page's holders' reads, side by side: the token's tax figures and its sell pledge (a
 * pledge that is not found means no agent launched the token: no pledge panel). A failed read
 * leaves its panel saying so.
 *
 * @example
 * const holders = agentHolderReads(get, address); // started beside the page's other reads
 */
export async function agentHolderReads(get: Get, address: string): Promise<HolderPanelsData> {
  const [tax, pledge] = await Promise.all([
    get<TokenTax>(`/tokens/${address}/tax`),
    get<SellPledge>(`/v2/agents/${address}/pledge`),
  ]);
  return pledge.kind === "not_found"
    ? { tax: optional(tax) }
    : { tax: optional(tax), pledge: optional(pledge) };
}

/**
 * A wallet's dividends for its portfolio page; null when the API could not give them.
 *
 * @example
 * const dividends = await walletDividends(get, "0xabc…");
 */
export async function walletDividends(get: Get, address: string): Promise<WalletDividends | null> {
  return optional(await get<WalletDividends>(`/v2/users/${address}/dividends`));
}
