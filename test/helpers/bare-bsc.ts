import { gunzipSync } from "node:zlib";
import { type Address, createTestClient, type Hex, http } from "viem";
import { pairInitCodeHash } from "../../contracts/external.ts";
import { type StartAnvilReturnType, startAnvil } from "../../devnet/anvil.ts";
import { deployOutsideContracts, type OutsideContracts } from "../../devnet/deploy.ts";
import { MAINNET } from "../../lib/config.ts";
import { freePort } from "../../lib/local/net.ts";

/** Safe 1.4.1's MultiSendCallOnly on BSC (CHAIN.md); the service reads no variable for it. */
const BSC_MULTISEND_CALL_ONLY = "0x9641d764fc13c8b624c04430c7356c1c7c8102e2";

export type BareBsc = {
  anvil: StartAnvilReturnType;
  rpcUrl: string;
  /** Where each outside contract now is: its BSC mainnet address (tokenDeployer: four.meme's own). */
  contracts: OutsideContracts;
  /** keccak256 of the Uniswap v2-core pair the stand-in DEX creates (PancakeSwap's differs). */
  pairInitCodeHash: Hex;
  stop: () => Promise<void>;
};

/**
 * A local chain 56 as an operator finds BSC: the outside contracts (four.meme, PancakeSwap,
 * Safe 1.4.1, ERC-8004, the BNB/USD feed, Multicall3, the deterministic deployment proxy) at
 * their mainnet addresses, and none of the service's own. The devnet's stand-ins are deployed
 * on a scratch chain, then their code and storage are moved to the mainnet addresses, every
 * address they hold (immutables, storage) rewritten to match; so a role configured with the
 * mainnet defaults finds them where it would on BSC.
 *
 * @example
 * const bsc = await startBareBsc({ blockTime: 1 });
 * // BSC_RPC_URL=bsc.rpcUrl, PAIR_INIT_CODE_HASH=bsc.pairInitCodeHash, nothing else
 */
export async function startBareBsc(
  p: { port?: number; blockTime?: number } = {},
): Promise<BareBsc> {
  const scratch = await startAnvil({ port: await freePort(), blockTime: 0 });
  let outside: OutsideContracts;
  let accounts: Record<string, { code: Hex; storage: Record<string, Hex> }>;
  try {
    outside = await deployOutsideContracts({ rpcUrl: scratch.rpcUrl });
    accounts = (await dump(scratch.rpcUrl)).accounts;
  } finally {
    await scratch.stop();
  }
  const moves: [Address, Address][] = [
    [outside.tokenManager2, MAINNET.tokenManager2],
    [outside.identityRegistry, MAINNET.identityRegistry],
    [outside.wbnb, MAINNET.wbnb],
    [outside.uniswapV2Factory, MAINNET.pancakeFactory],
    [outside.uniswapV2Router, MAINNET.pancakeRouter],
    [outside.safeL2Singleton, MAINNET.safeL2Singleton],
    [outside.safeProxyFactory, MAINNET.safeProxyFactory],
    [outside.safeFallbackHandler, MAINNET.safeFallbackHandler],
    [outside.multiSendCallOnly, BSC_MULTISEND_CALL_ONLY],
    [outside.bnbUsdFeed, MAINNET.bnbUsdFeed],
  ];
  const rewrite = (hex: Hex): Hex => {
    let out: string = hex.toLowerCase();
    for (const [from, to] of moves) out = out.replaceAll(from.slice(2), to.slice(2));
    return out as Hex;
  };

  const anvil = await startAnvil({
    port: p.port ?? (await freePort()),
    blockTime: p.blockTime ?? 1,
  });
  const test = createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) });
  const copy: [Address, Address][] = [
    ...moves,
    [outside.tokenDeployer, outside.tokenDeployer],
    [outside.multicall3, outside.multicall3],
  ];
  for (const [from, to] of copy) {
    const account = accounts[from];
    if (!account?.code || account.code === "0x") throw new Error(`no code at ${from} to move`);
    await test.setCode({ address: to, bytecode: rewrite(account.code) });
    for (const [slot, value] of Object.entries(account.storage)) {
      await test.setStorageAt({ address: to, index: slot as Hex, value: rewrite(value) });
    }
  }
  await test.mine({ blocks: 1 });
  const moved = Object.fromEntries(moves.map(([from, to]) => [from, to]));
  const contracts = Object.fromEntries(
    Object.entries(outside).map(([name, address]) => [name, moved[address] ?? address]),
  ) as OutsideContracts;

  return {
    anvil,
    rpcUrl: anvil.rpcUrl,
    contracts,
    pairInitCodeHash: pairInitCodeHash(),
    stop: anvil.stop,
  };
}

async function dump(
  rpcUrl: string,
): Promise<{ accounts: Record<string, { code: Hex; storage: Record<string, Hex> }> }> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_dumpState", params: [] }),
  });
  const hex = ((await res.json()) as { result: string }).result;
  return JSON.parse(gunzipSync(Buffer.from(hex.slice(2), "hex")).toString("utf8"));
}
