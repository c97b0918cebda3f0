import { type Address, getAddress, type Hex, isAddress, zeroAddress } from "viem";
import { z } from "zod";

const uint = z
  .union([z.string().regex(/^\d{1,78}$/), z.number().int().nonnegative()])
  .transform((v) => String(v));
const address = z
  .string()
  .refine((a) => isAddress(a, { strict: false }), "Address is not valid")
  .transform((a) => getAddress(a));
const hex = z.string().regex(/^0x([0-9a-fA-F]{2})*$/, "Hexadecimal value is not valid");

// SafeMultisigTransactionSerializer (history/serializers.py) as the stand-in reads it: the
// Safe transaction, its hash, the sender and (optionally) the sender's signatures.
const ProposalBody = z.object({
  to: address,
  value: uint,
  data: hex
    .nullable()
    .optional()
    .transform((d) => (d && d !== "0x" ? (d as Hex) : null)),
  operation: z.union([z.literal(0), z.literal(1)]),
  safeTxGas: uint,
  baseGas: uint,
  gasPrice: uint,
  gasToken: address
    .nullable()
    .optional()
    .transform((a) => a ?? zeroAddress),
  refundReceiver: address
    .nullable()
    .optional()
    .transform((a) => a ?? zeroAddress),
  nonce: uint,
  contractTransactionHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "Hash is not valid"),
  sender: address,
  signature: hex.nullable().optional(),
  origin: z.string().max(200).nullable().optional(),
});
export type Proposal = z.infer<typeof ProposalBody> & {
  to: Address;
  contractTransactionHash: Hex;
};

/**
 * Reads a proposal body; a field that does not validate answers as DRF does: 422 with the
 * errors keyed by the (camelCase) field.
 *
 * @example
 * const r = readProposal(await c.req.json());
 * if ("errors" in r) return c.json(r.errors, 422);
 */
export function readProposal(body: unknown): Proposal | { errors: Record<string, string[]> } {
  const r = ProposalBody.safeParse(body ?? {});
  if (r.success) return r.data as Proposal;
  const errors: Record<string, string[]> = {};
  for (const i of r.error.issues) {
    const key = String(i.path[0] ?? "nonFieldErrors");
    const message =
      i.code === "invalid_type" && i.input === undefined ? "This field is required." : i.message;
    errors[key] = [...(errors[key] ?? []), message];
  }
  return { errors };
}

/**
 * The stored `origin` as the response serializer writes it: a string stays as sent, none is the
 * empty JSON object the model defaults to.
 */
export const originOf = (o: string | null | undefined) => (o ? o : "{}");
