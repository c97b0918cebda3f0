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

/**
 * ABI layout of the createToken `args` blob (a single tuple, see contracts/README.md). Private
 * to the devnet: the four.meme stand-in writes it, TokenManager2 reads it. The launch saga
 * never reads it (four.meme's `createArg` is opaque), only passes it on.
 */
export const CREATE_ARGS_ABI = [
  {
    type: "tuple",
    components: [
      { name: "name", type: "string" },
      { name: "symbol", type: "string" },
      { name: "requestId", type: "uint256" },
      { name: "creator", type: "address" },
      { name: "feeRateBps", type: "uint16" },
      { name: "burnRate", type: "uint8" },
      { name: "divideRate", type: "uint8" },
      { name: "liquidityRate", type: "uint8" },
      { name: "recipientRate", type: "uint8" },
      { name: "recipient", type: "address" },
      { name: "minSharing", type: "uint256" },
      { name: "deadline", type: "uint64" },
      { name: "preSale", type: "uint256" },
      { name: "feeSetting", type: "uint8" },
    ],
  },
] as const;

/** TokenManager2's TAX_MIN_DISPATCH: tokens of tax kept before a dispatch. */
const TAX_MIN_DISPATCH = 1_000n * 10n ** 18n;

export type CreateArgs = {
  name: string;
  symbol: string;
  /** Single use: the contract rejects a second token with the same id. */
  requestId: bigint;
  /** Must be the sender of createToken. */
  creator: Address;
  /** Tax on every DEX trade after graduation, basis points (the API's `feeRate` x 100). Default 300. */
  feeRateBps?: number;
  /** The four shares of the tax, percent, summing to 100. Default: all to the recipient. */
  burnRate?: number;
  divideRate?: number;
  liquidityRate?: number;
  recipientRate?: number;
  /** four.meme `recipientAddress`: `recipientRate` % of every dispatch, in BNB (the agent's treasury). */
  recipient: Address;
  /** Minimum holding, wei, to share in dividends. Default 100000 tokens. */
  minSharing?: bigint;
  /** Unix seconds after which the args are refused; 0 = no deadline. */
  deadline?: bigint;
  /** four.meme `preSale` in wei: the creator's first buy inside createToken. Default 0. */
  preSale?: bigint;
  /** four.meme `feePlan` (AntiSniperFeeMode): 1 on, 0 off (`_tokenInfoEx1s.feeSetting`). Default 0. */
  feeSetting?: number;
};

// `??`, not a spread: a caller passing `feeRateBps: undefined` still gets the default.
const withDefaults = (a: CreateArgs): Required<CreateArgs> => ({
  ...a,
  feeRateBps: a.feeRateBps ?? 300,
  burnRate: a.burnRate ?? 0,
  divideRate: a.divideRate ?? 0,
  liquidityRate: a.liquidityRate ?? 0,
  recipientRate: a.recipientRate ?? 100,
  minSharing: a.minSharing ?? 100_000n * 10n ** 18n,
  deadline: a.deadline ?? 0n,
  preSale: a.preSale ?? 0n,
  feeSetting: a.feeSetting ?? 0,
});

/**
 * ABI-encodes createToken `args`.
 */
export function encodeCreateArgs(a: CreateArgs): Hex {
  return encodeAbiParameters(CREATE_ARGS_ABI, [withDefaults(a)]);
}

/** Decodes createToken `args` (devnet tooling and tests only; the saga never does). */
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
  /** four.meme's signing key (the stand-in's) (devnet account 2). */
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
 * `bytes32(requestId)` bound to TokenManager2, and the constructor params it passes. Devnet
 * tooling only (the storyline seeds tokens with it); the launch saga never predicts.
 */
export async function predictTokenAddress(p: PredictTokenAddressParameters): Promise<Address> {
  const a = p.args;
  const d = withDefaults(a);
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
        // TokenManager2's `_taxTokenParams`: the signed terms as the tax token takes them.
        feeRate: BigInt(d.feeRateBps),
        sellFeeRate: BigInt(d.feeRateBps),
        founder: d.recipientRate === 0 ? zeroAddress : d.recipient,
        rateFounder: BigInt(d.recipientRate),
        rateHolder: BigInt(d.divideRate),
        rateBurn: BigInt(d.burnRate),
        rateLiquidity: BigInt(d.liquidityRate),
        minDispatch: TAX_MIN_DISPATCH,
        minShare: d.minSharing,
      },
    ],
  });
  return token.toLowerCase() as Address;
}
