import {
  type Address,
  decodeAbiParameters,
  encodeAbiParameters,
  type Hex,
  keccak256,
  type LocalAccount,
  type PublicClient,
  pad,
  toHex,
  zeroAddress,
} from "viem";
import { tokenDeployerAbi } from "../abis/TokenDeployer.ts";

/** ABI layout of the createToken `args` blob (a single tuple, see contracts/README.md). */
export const CREATE_ARGS_ABI = [
  {
    type: "tuple",
    components: [
      { name: "name", type: "string" },
      { name: "symbol", type: "string" },
      { name: "requestId", type: "uint256" },
      { name: "creator", type: "address" },
      { name: "buyTaxBps", type: "uint16" },
      { name: "sellTaxBps", type: "uint16" },
      { name: "treasury", type: "address" },
      { name: "treasuryShareBps", type: "uint16" },
      { name: "deadline", type: "uint64" },
    ],
  },
] as const;

/** The devnet's default terms: four.meme's 3% feeRate, 100% to the recipient. */
const DEFAULT_TAX_BPS = 300;
const DEFAULT_TREASURY_SHARE_BPS = 10_000;
/** TokenManager2's TAX_MIN_DISPATCH and DEFAULT_MIN_SHARING (whole tokens). */
const TAX_MIN_DISPATCH = 1_000n * 10n ** 18n;
const DEFAULT_MIN_SHARING = 100_000n;

export type CreateArgs = {
  name: string;
  symbol: string;
  /** Single use: the contract rejects a second token with the same id. */
  requestId: bigint;
  /** Must be the sender of createToken. */
  creator: Address;
  /** Default 300 (3%); whole percent, at most 1000, equal to `sellTaxBps` (one four.meme feeRate). */
  buyTaxBps?: number;
  /** Default 300 (3%); must equal `buyTaxBps`. */
  sellTaxBps?: number;
  /** The token's recipient (four.meme `recipientAddress`): its share of every dispatch, in BNB. */
  treasury: Address;
  /** Default 10000 (100%), whole percent; the rest of each dispatch is burned. */
  treasuryShareBps?: number;
  /** Unix seconds after which the args are refused; 0 = no deadline. */
  deadline?: bigint;
};

/**
 * ABI-encodes createToken `args`.
 *
 * @example
 * const args = encodeCreateArgs({ name: "Agent", symbol: "AGT", requestId: 1n, creator, treasury });
 */
export function encodeCreateArgs(a: CreateArgs): Hex {
  return encodeAbiParameters(CREATE_ARGS_ABI, [
    {
      name: a.name,
      symbol: a.symbol,
      requestId: a.requestId,
      creator: a.creator,
      buyTaxBps: a.buyTaxBps ?? DEFAULT_TAX_BPS,
      sellTaxBps: a.sellTaxBps ?? DEFAULT_TAX_BPS,
      treasury: a.treasury,
      treasuryShareBps: a.treasuryShareBps ?? DEFAULT_TREASURY_SHARE_BPS,
      deadline: a.deadline ?? 0n,
    },
  ]);
}

/** Decodes createToken `args` (for the API stand-in and tests). */
export function decodeCreateArgs(args: Hex): Required<CreateArgs> {
  const [t] = decodeAbiParameters(CREATE_ARGS_ABI, args);
  return { ...t };
}

/**
 * The 32-byte hash the signer signs with EIP-191 (`personal_sign`): binds the args to one chain
 * and one TokenManager2. Same as the contract's `createArgsHash(args)`.
 */
export function createArgsHash(p: { args: Hex; chainId: number; tokenManager: Address }): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "uint256" }, { type: "address" }, { type: "bytes32" }],
      [BigInt(p.chainId), p.tokenManager, keccak256(p.args)],
    ),
  );
}

export type SignCreateArgsParameters = CreateArgs & {
  /** The launchpad API's signing key (devnet account 2). */
  signer: LocalAccount;
  chainId: number;
  tokenManager: Address;
};

export type SignCreateArgsReturnType = { args: Hex; signature: Hex };

/**
 * Produces the (args, signature) pair TokenManager2.createToken accepts.
 *
 * @example
 * const { args, signature } = await signCreateArgs({ ...createArgs, signer, chainId: 56, tokenManager });
 * await wallet.writeContract({ abi: tokenManager2Abi, address: tokenManager, functionName: "createToken", args: [args, signature], value: launchFee });
 */
export async function signCreateArgs(
  p: SignCreateArgsParameters,
): Promise<SignCreateArgsReturnType> {
  const { signer, chainId, tokenManager, ...createArgs } = p;
  const args = encodeCreateArgs(createArgs);
  const hash = createArgsHash({ args, chainId, tokenManager });
  const signature = await signer.signMessage({ message: { raw: hash } });
  return { args, signature };
}

/** Supply TokenManager2 mints for every token (1e9 tokens, 18 decimals). */
export const CURVE_TOTAL_SUPPLY = 10n ** 27n;

export type PredictTokenAddressParameters = {
  /** Reads `TokenDeployer.predict`. */
  client: PublicClient;
  tokenDeployer: Address;
  tokenManager: Address;
  /** The DEX router TokenManager2 graduates to (the token swaps its tax through it). */
  router: Address;
  pairInitCodeHash: Hex;
  args: CreateArgs;
};

/**
 * The address `createToken(args)` will deploy the token at: TokenDeployer's CREATE2 with salt
 * `bytes32(requestId)` bound to TokenManager2, and the constructor params it passes. The launch
 * saga registers this address in the ServiceRegistry before it creates the token.
 *
 * @example
 * const token = await predictTokenAddress({ client, tokenDeployer, tokenManager, router, pairInitCodeHash, args });
 */
export async function predictTokenAddress(p: PredictTokenAddressParameters): Promise<Address> {
  const a = p.args;
  const rate = (BigInt(a.buyTaxBps ?? DEFAULT_TAX_BPS) / 100n) * 100n;
  const share = BigInt(a.treasuryShareBps ?? DEFAULT_TREASURY_SHARE_BPS) / 100n;
  const token = await p.client.readContract({
    address: p.tokenDeployer,
    abi: tokenDeployerAbi,
    functionName: "predict",
    args: [
      p.tokenManager,
      pad(toHex(a.requestId), { size: 32 }),
      {
        name: a.name,
        symbol: a.symbol,
        totalSupply: CURVE_TOTAL_SUPPLY,
        manager: p.tokenManager,
        router: p.router,
        pairInitCodeHash: p.pairInitCodeHash,
        // TokenManager2's `_termsOf`: one rate in whole percent, the treasury's share, the rest burned.
        feeRate: rate,
        sellFeeRate: rate,
        founder: share === 0n ? zeroAddress : a.treasury,
        rateFounder: share,
        rateHolder: 0n,
        rateBurn: 100n - share,
        rateLiquidity: 0n,
        minDispatch: TAX_MIN_DISPATCH,
        minShare: DEFAULT_MIN_SHARING * 10n ** 18n,
      },
    ],
  });
  return token.toLowerCase() as Address;
}
