import { type Address, type Hex, recoverAddress, recoverMessageAddress, size, slice } from "viem";

export type ParsedSignature = {
  owner: Address;
  /** The 65 bytes as the service exports them (r‖s‖v, v as given). */
  signature: Hex;
  signatureType: "EOA" | "ETH_SIGN";
};

/**
 * Splits owner signatures (65-byte r‖s‖v each, concatenated) as the service's `SafeSignature`
 * does and recovers each signer: v 27/28 signs the safeTxHash itself (EIP-712, what
 * protocol-kit's `signTransaction` makes), v 31/32 signs it as an eth_sign message (v + 4, what
 * protocol-kit's `signHash` makes). Contract signatures (v 0) and approved hashes (v 1) are
 * left out of the stand-in: they answer an error naming the signature.
 */
export async function parseSignatures(
  hash: Hex,
  signatures: Hex,
): Promise<ParsedSignature[] | { error: string }> {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(signatures) || size(signatures) < 65) {
    return { error: "Ensure this field has at least 65 hexadecimal chars (not counting 0x)." };
  }
  const out: ParsedSignature[] = [];
  for (let i = 0; i + 65 <= size(signatures); i += 65) {
    const sig = slice(signatures, i, i + 65);
    const v = Number.parseInt(sig.slice(-2), 16);
    const rs = sig.slice(0, -2);
    try {
      if (v === 27 || v === 28) {
        out.push({
          owner: await recoverAddress({ hash, signature: sig }),
          signature: sig,
          signatureType: "EOA",
        });
      } else if (v === 31 || v === 32) {
        const owner = await recoverMessageAddress({
          message: { raw: hash },
          signature: `${rs}${(v - 4).toString(16)}` as Hex,
        });
        out.push({ owner, signature: sig, signatureType: "ETH_SIGN" });
      } else {
        return { error: `Signature=${sig} is not supported by the stand-in (v=${v})` };
      }
    } catch {
      return { error: `Signature=${sig} is not valid` };
    }
  }
  return out;
}
