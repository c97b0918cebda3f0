/**
 * What the stack's RPC calls would cost on a hosted BSC provider, from published figures
 * (docs/capacity.md cites them; read 2026-12-06):
 * - compute units per method: NodeReal MegaNode, BSC's own provider,
 *   https://docs.nodereal.io/docs/compute-units-cus (a method not listed counts 20, eth_call's);
 * - the price of a compute unit: Huawei Cloud NES, whose shared edition serves BNB Smart Chain,
 *   https://support.huaweicloud.com/intl/en-us/productdesc-nes/nes_productdesc_00009.html
 *   (page updated 2024-06-17): Professional Edition USD 49 a month with 600 M CUs, each further
 *   million USD 1.2; and its dedicated node's per-call fee, USD 4.81 a million calls.
 * The two providers weigh methods differently (NES's own example counts eth_blockNumber 10,
 * NodeReal 5): the price is an estimate of the order of magnitude, not a quote.
 */
export const NODEREAL_CUS: Record<string, number> = {
  eth_blockNumber: 5,
  eth_chainId: 5,
  net_version: 5,
  eth_subscribe: 10,
  eth_unsubscribe: 10,
  eth_gasPrice: 15,
  eth_getBalance: 15,
  eth_getBlockByNumber: 15,
  eth_getCode: 15,
  eth_getStorageAt: 15,
  eth_getTransactionByHash: 15,
  eth_getTransactionReceipt: 15,
  eth_getBlockByHash: 18,
  eth_call: 20,
  eth_getTransactionCount: 25,
  eth_getLogs: 50,
  eth_estimateGas: 75,
  eth_sendRawTransaction: 150,
};
const UNLISTED_CUS = 20;
export const PRICE_SOURCES = {
  cus: "https://docs.nodereal.io/docs/compute-units-cus",
  price: "https://support.huaweicloud.com/intl/en-us/productdesc-nes/nes_productdesc_00009.html",
  read: "2026-12-06",
};

/** Calls a day by method, their compute units, and the month's price on the plans above. */
export function priceRpc(callsPerDay: Record<string, number>) {
  let cusPerDay = 0;
  let callsTotal = 0;
  for (const [method, n] of Object.entries(callsPerDay)) {
    if (method.startsWith("ws:")) continue;
    cusPerDay += n * (NODEREAL_CUS[method] ?? UNLISTED_CUS);
    callsTotal += n;
  }
  const cusPerMonth = cusPerDay * 30;
  const sharedUsd = 49 + (Math.max(0, cusPerMonth - 600e6) / 1e6) * 1.2;
  return {
    callsPerDay: Math.round(callsTotal),
    cusPerDay: Math.round(cusPerDay),
    cusPerMonth: Math.round(cusPerMonth),
    usdPerMonthShared: Math.round(sharedUsd),
    usdPerMonthPerCall: Math.round(((callsTotal * 30) / 1e6) * 4.81),
    sources: PRICE_SOURCES,
  };
}
