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

export type CreateArgs = {
  name: string;
  symbol: string;
  /** Single use: the contract rejects a second token with the same id. */
  requestId: bigint;
  /** Must be the sender of createToken. */
  creator: Address;
  /** Default 200 (2%); at most 1000. */
  buyTaxBps?: number;
  /** Default 200 (2%); at most 1000. */
  sellTaxBps?: number;
  /** Receives `treasuryShareBps` of every tax. */
  treasury: Address;
  /** Default 5000 (50%); the rest goes to the platform. */
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
      buyTaxBps: a.buyTaxBps ?? 200,
      sellTaxBps: a.sellTaxBps ?? 200,
      treasury: a.treasury,
      treasuryShareBps: a.treasuryShareBps ?? 5000,
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
  /** TokenManager2's fee recipient (the `platform` account on the devnet). */
  platform: Address;
  dexFactory: Address;
  wbnb: Address;
  pairInitCodeHash: Hex;
  args: CreateArgs;
};

/**
 * The address `createToken(args)` will deploy the token at: TokenDeployer's CREATE2 with salt
 * `bytes32(requestId)` bound to TokenManager2, and the constructor params it passes. The launch
 * saga registers this address in the ServiceRegistry before it creates the token.
 *
 * @example
 * const token = await predictTokenAddress({ client, tokenDeployer, tokenManager, platform, dexFactory, wbnb, pairInitCodeHash, args });
 */
export async function predictTokenAddress(p: PredictTokenAddressParameters): Promise<Address> {
  const a = p.args;
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
        dexFactory: p.dexFactory,
        wbnb: p.wbnb,
        pairInitCodeHash: p.pairInitCodeHash,
        buyTaxBps: a.buyTaxBps ?? 200,
        sellTaxBps: a.sellTaxBps ?? 200,
        treasury: a.treasury,
        platform: p.platform,
        treasuryShareBps: a.treasuryShareBps ?? 5000,
      },
    ],
  });
  return token.toLowerCase() as Address;
}
