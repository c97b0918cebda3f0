import { getAddress } from "viem";
import { upstreamJson } from "../http.ts";
import { MultisigTransaction, Page } from "./protocol.ts";

export type SafeTxServiceClientParameters = {
  apiUrl: string;
  timeoutMs: number;
  /** The gateway's API key (api.safe.global requires one); unset for the stand-in. */
  apiKey?: string;
};

/**
 * Typed client of the Safe Transaction Service (or its local stand-in): the multisig
 * transactions of a Safe, answers checked with zod. Throws `UpstreamError` ("safe-tx-service").
 *
 * @example
 * const safe = createSafeTxServiceClient({ apiUrl, timeoutMs: 10_000 });
 * const page = await safe.multisigTransactions("0xSafe…", { modifiedGte: new Date(0), limit: 100, offset: 0 });
 */
export function createSafeTxServiceClient(p: SafeTxServiceClientParameters) {
  const base = p.apiUrl.replace(/\/$/, "");
  const headers = p.apiKey ? { authorization: `Bearer ${p.apiKey}` } : undefined;
  return {
    /** Transactions modified at or after `modifiedGte`, oldest change first. */
    multisigTransactions: async (
      safe: string,
      o: { modifiedGte: Date; limit: number; offset: number },
    ) => {
      const q = new URLSearchParams({
        modified__gte: o.modifiedGte.toISOString(),
        ordering: "modified",
        limit: String(o.limit),
        offset: String(o.offset),
      });
      return upstreamJson({
        service: "safe-tx-service",
        url: `${base}/api/v2/safes/${getAddress(safe)}/multisig-transactions/?${q}`,
        headers,
        timeoutMs: p.timeoutMs,
        retries: 0,
        schema: Page(MultisigTransaction),
      });
    },
  };
}

export type SafeTxServiceClient = ReturnType<typeof createSafeTxServiceClient>;
