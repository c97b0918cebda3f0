import { type Address, encodePacked, getCreate2Address, type Hex, keccak256 } from "viem";

export type PairAddressParameters = {
  /** The DEX factory (PancakeSwap V2 on BSC, the devnet's Uniswap V2 factory locally). */
  factory: Address;
  token: Address;
  /** The quote token (WBNB). */
  wbnb: Address;
  /** keccak256 of the pair's creation code; per chain (PancakeSwap's differs from Uniswap's). */
  initCodeHash: Hex;
};

export type PairAddressReturnType = Address;

/**
 * The V2 pair address of `token`/WBNB, known before the pair exists: CREATE2 from the factory
 * with salt keccak256(token0, token1) (sorted) and the pair init code hash. The launch saga
 * registers it with the token, so the indexer can tell the token's DEX swaps in a receipt.
 *
 * @example
 * const pair = pairAddress({ factory, token, wbnb, initCodeHash: chain.pairInitCodeHash });
 */
export function pairAddress(p: PairAddressParameters): PairAddressReturnType {
  const [token0, token1] =
    p.token.toLowerCase() < p.wbnb.toLowerCase() ? [p.token, p.wbnb] : [p.wbnb, p.token];
  return getCreate2Address({
    from: p.factory,
    salt: keccak256(encodePacked(["address", "address"], [token0, token1])),
    bytecodeHash: p.initCodeHash,
  }).toLowerCase() as Address;
}
