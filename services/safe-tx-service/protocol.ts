import { type Address, getAddress, type Hex, hashTypedData } from "viem";
import { z } from "zod";

// Wire types of the Safe Transaction Service (PROTOCOLS.md section 2), shared by the client,
// the Safe poller and the local stand-in. Bodies are camelCase, query parameters snake_case.

export const Confirmation = z.looseObject({
  owner: z.string(),
  submissionDate: z.string(),
  transactionHash: z.string().nullable(),
  signature: z.string(),
  signatureType: z.string(),
});

// SafeMultisigTransactionResponseSerializerV2: every field an owner needs to rebuild the Safe
// transaction and execute it (the gas fields, the refund, the confirmations' signatures).
export const MultisigTransaction = z.looseObject({
  safe: z.string(),
  to: z.string(),
  value: z.string(),
  data: z.string().nullable(),
  operation: z.number(),
  gasToken: z.string(),
  safeTxGas: z.union([z.string(), z.number()]).transform(String),
  baseGas: z.union([z.string(), z.number()]).transform(String),
  gasPrice: z.string(),
  refundReceiver: z.string(),
  nonce: z.union([z.string(), z.number()]).transform(String),
  executionDate: z.string().nullable(),
  submissionDate: z.string(),
  modified: z.string(),
  blockNumber: z.number().nullable(),
  transactionHash: z.string().nullable(),
  safeTxHash: z.string(),
  proposer: z.string().nullable(),
  proposedByDelegate: z.string().nullable(),
  executor: z.string().nullable(),
  isExecuted: z.boolean(),
  isSuccessful: z.boolean().nullable(),
  ethGasPrice: z.string().nullable(),
  maxFeePerGas: z.string().nullable(),
  maxPriorityFeePerGas: z.string().nullable(),
  gasUsed: z.number().nullable(),
  fee: z.string().nullable(),
  payment: z.string().nullable(),
  origin: z.string(),
  /** Deprecated upstream (decoding moved to the decoder service) but still written, often null. */
  dataDecoded: z.unknown(),
  confirmationsRequired: z.number(),
  confirmations: z.array(Confirmation),
  trusted: z.boolean(),
  signatures: z.string().nullable(),
});
export type MultisigTransaction = z.infer<typeof MultisigTransaction>;

export const Page = <T extends z.ZodType>(item: T) =>
  z.object({
    count: z.number(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
  });

/** The body of a proposal (`POST /api/v2/safes/{address}/multisig-transactions/`). */
export type ProposeBody = {
  to: Address;
  value: string;
  data: Hex | null;
  operation: 0 | 1;
  safeTxGas: string;
  baseGas: string;
  gasPrice: string;
  gasToken: Address;
  refundReceiver: Address;
  nonce: string;
  contractTransactionHash: Hex;
  sender: Address;
  signature?: Hex;
  origin?: string;
};

/** The Safe's EIP-712 transaction hash (Safe 1.3.0-1.4.1: domain chainId + verifyingContract). */
export function safeTxHash(
  chainId: number,
  safe: Address,
  t: Omit<ProposeBody, "contractTransactionHash" | "sender" | "signature" | "origin">,
): Hex {
  return hashTypedData({
    domain: { chainId, verifyingContract: getAddress(safe) },
    types: {
      SafeTx: [
        { name: "to", type: "address" },
        { name: "value", type: "uint256" },
        { name: "data", type: "bytes" },
        { name: "operation", type: "uint8" },
        { name: "safeTxGas", type: "uint256" },
        { name: "baseGas", type: "uint256" },
        { name: "gasPrice", type: "uint256" },
        { name: "gasToken", type: "address" },
        { name: "refundReceiver", type: "address" },
        { name: "nonce", type: "uint256" },
      ],
    },
    primaryType: "SafeTx",
    message: {
      to: t.to,
      value: BigInt(t.value),
      data: t.data ?? "0x",
      operation: t.operation,
      safeTxGas: BigInt(t.safeTxGas),
      baseGas: BigInt(t.baseGas),
      gasPrice: BigInt(t.gasPrice),
      gasToken: t.gasToken,
      refundReceiver: t.refundReceiver,
      nonce: BigInt(t.nonce),
    },
  });
}
