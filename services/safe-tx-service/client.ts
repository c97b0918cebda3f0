import { getAddress } from "viem";
import { parseUpstream, UpstreamError } from "../http.ts";
import type { SafeApiKit } from "./kits.ts";
import { MultisigTransaction, Page } from "./protocol.ts";

export type SafeTxServiceClientParameters = {
  /** The service's root, without `/api` (e.g. https://api.safe.global/tx-service/bnb). */
  apiUrl: string;
  timeoutMs: number;
  /** The gateway's API key (api.safe.global requires one); unset for the stand-in. */
  apiKey?: string;
  /** The chain the Safes live on (api-kit checks EIP-3770 prefixes against it). */
  chainId?: number;
};

const SERVICE = "safe-tx-service";

/**
 * An api-kit call as an UpstreamError-typed one: `unavailable` when unreachable, timed out,
 * 429 or 5xx; `rejected` on any other 4xx; `bad_response` when the body is not JSON.
 * api-kit's fetch takes no abort signal, so the timeout abandons the call (its socket is
 * closed by the service or by the process) rather than cancelling it.
 */
async function call<T>(what: string, timeoutMs: number, run: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new UpstreamError(SERVICE, "unavailable", `${what} timed out`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([run(), timeout]);
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    const e = error as Error & { statusCode?: number; data?: unknown };
    if (typeof e.statusCode === "number") {
      const transient = e.statusCode === 429 || e.statusCode >= 500;
      throw new UpstreamError(
        SERVICE,
        transient ? "unavailable" : "rejected",
        `${what} answered ${e.statusCode}`,
        {
          status: e.statusCode,
          details: JSON.stringify(e.data ?? e.message).slice(0, 2000),
        },
      );
    }
    if (e instanceof SyntaxError) {
      throw new UpstreamError(SERVICE, "bad_response", `${what} answered with non-JSON`, {
        cause: e,
      });
    }
    throw new UpstreamError(SERVICE, "unavailable", `${what} unreachable`, {
      details: e.message,
      cause: e,
    });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The Safe Transaction Service (or its local stand-in) through `@safe-global/api-kit`: the
 * multisig transactions of a Safe, answers checked with zod. Throws `UpstreamError`
 * ("safe-tx-service").
 *
 * @example
 * const safe = createSafeTxServiceClient({ apiUrl, timeoutMs: 10_000 });
 * const page = await safe.multisigTransactions("0xSafe…", { modifiedGte: new Date(0), limit: 100, offset: 0 });
 */
export function createSafeTxServiceClient(p: SafeTxServiceClientParameters) {
  // The kits are loaded at the first call, not with the worker: they pull in every chain viem
  // defines (about 900 of the worker's 2,400 modules at its start).
  let kit: Promise<SafeApiKit> | undefined;
  const loadKit = () =>
    (kit ??= import("./kits.ts").then(
      ({ SafeApiKit }) =>
        new SafeApiKit({
          chainId: BigInt(p.chainId ?? 56),
          txServiceUrl: `${p.apiUrl.replace(/\/$/, "")}/api`,
          apiKey: p.apiKey,
        }),
    ));
  return {
    /**
     * Transactions modified at or after `modifiedGte`, oldest change first. `beforeSend` runs
     * right before the request goes (after the kits load): a rate budget's turn taken there
     * is the moment the service counts.
     */
    multisigTransactions: async (
      safe: string,
      o: { modifiedGte: Date; limit: number; offset: number; beforeSend?: () => Promise<void> },
    ) => {
      const api = await loadKit();
      await o.beforeSend?.();
      const raw = await call("multisig-transactions", p.timeoutMs, () =>
        api.getMultisigTransactions(getAddress(safe), {
          modified__gte: o.modifiedGte.toISOString(),
          ordering: "modified",
          limit: o.limit,
          offset: o.offset,
        }),
      );
      return parseUpstream(SERVICE, Page(MultisigTransaction), raw, "multisig-transactions");
    },
  };
}

export type SafeTxServiceClient = ReturnType<typeof createSafeTxServiceClient>;
