import { setTimeout as sleep } from "node:timers/promises";
import { HttpRequestError, HttpTransport, InfoClient, TransportError } from "@nktkas/hyperliquid";
import type { z } from "zod";
import { parseUpstream, UpstreamError } from "../http.ts";
import { HYPERLIQUID_LIMITS, UPSTREAM_LIMITS } from "../limits.ts";
import {
  AllMids,
  ClearinghouseState,
  type ExchangeRequest,
  ExchangeResponse,
  Fill,
  LedgerUpdate,
  Meta,
  MetaAndAssetCtxs,
  OpenOrder,
} from "./protocol.ts";

export type HyperliquidClientParameters = {
  apiUrl: string;
  /** Per-request timeout of info reads; default HYPERLIQUID_LIMITS.infoTimeoutMs. */
  timeoutMs?: number;
  /** Attempts after the first for a failed read; the pollers use 0 (the next tick retries). */
  retries?: number;
};

const SERVICE = "hyperliquid";

/** An SDK failure as the UpstreamError the pollers and the signer act on. */
function upstreamError(what: string, error: unknown): UpstreamError {
  if (error instanceof HttpRequestError && error.response) {
    const status = error.response.status;
    // The SDK refuses a 200 that is not JSON: the venue broke its promise.
    if (error.response.ok) {
      return new UpstreamError(SERVICE, "bad_response", `${what} answered with non-JSON`, {
        status,
        cause: error,
      });
    }
    const transient = status === 429 || status >= 500;
    return new UpstreamError(
      SERVICE,
      transient ? "unavailable" : "rejected",
      `${what} answered ${status}`,
      {
        status,
        details: error.message.slice(0, 2000),
      },
    );
  }
  if (error instanceof TransportError) {
    return new UpstreamError(SERVICE, "unavailable", `${what} unreachable`, {
      details: error.message,
      cause: error,
    });
  }
  if (error instanceof SyntaxError) {
    return new UpstreamError(SERVICE, "bad_response", `${what} answered with non-JSON`, {
      cause: error,
    });
  }
  throw error;
}

/**
 * Hyperliquid's info and exchange endpoints (the venue or the local stand-in; only `apiUrl`
 * differs) through `@nktkas/hyperliquid`'s InfoClient and HttpTransport. Every answer is
 * checked against `protocol.ts`; a mismatch is an `UpstreamError` of kind `bad_response`, a
 * timeout or 5xx/429 one of kind `unavailable`, another 4xx one of kind `rejected`.
 *
 * @example
 * const hl = createHyperliquidClient({ apiUrl: "https://api.hyperliquid.xyz" });
 * const fills = await hl.userFillsByTime(user, Date.now() - 60_000);
 */
export function createHyperliquidClient(p: HyperliquidClientParameters) {
  const apiUrl = p.apiUrl.replace(/\/$/, "");
  const info = new InfoClient({
    transport: new HttpTransport({
      apiUrl,
      timeout: p.timeoutMs ?? HYPERLIQUID_LIMITS.infoTimeoutMs,
    }),
  });
  const exchangeTransport = new HttpTransport({
    apiUrl,
    timeout: HYPERLIQUID_LIMITS.exchangeTimeoutMs,
  });
  const retries = p.retries ?? UPSTREAM_LIMITS.retries;
  const read = async <S extends z.ZodType>(
    what: string,
    schema: S,
    call: () => Promise<unknown>,
  ): Promise<z.output<S>> => {
    let last: UpstreamError | undefined;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(UPSTREAM_LIMITS.backoffMs * 2 ** (attempt - 1));
      let raw: unknown;
      try {
        raw = await call();
      } catch (error) {
        last = upstreamError(what, error);
        if (last.kind !== "unavailable") throw last;
        continue;
      }
      return parseUpstream(SERVICE, schema, raw, what);
    }
    throw last as UpstreamError;
  };
  const user = (u: string) => u.toLowerCase() as `0x${string}`;
  return {
    clearinghouseState: (u: string) =>
      read("clearinghouseState", ClearinghouseState, () =>
        info.clearinghouseState({ user: user(u) }),
      ),
    /** Fills with `startTime <= time <= endTime`, oldest first, at most 2000. */
    userFillsByTime: (u: string, startTime: number, endTime?: number) =>
      read("userFillsByTime", Fill.array(), () =>
        info.userFillsByTime({ user: user(u), startTime, endTime }),
      ),
    /** Deposits, withdrawals, liquidations, … with `startTime <= time`, at most 500. */
    userNonFundingLedgerUpdates: (u: string, startTime: number, endTime?: number) =>
      read("userNonFundingLedgerUpdates", LedgerUpdate.array(), () =>
        info.userNonFundingLedgerUpdates({ user: user(u), startTime, endTime }),
      ),
    /** Resting orders (limit and trigger) of the account. */
    openOrders: (u: string) =>
      read("openOrders", OpenOrder.array(), () => info.openOrders({ user: user(u) })),
    allMids: () => read("allMids", AllMids, () => info.allMids()),
    meta: () => read("meta", Meta, () => info.meta()),
    metaAndAssetCtxs: () =>
      read("metaAndAssetCtxs", MetaAndAssetCtxs, () => info.metaAndAssetCtxs()),
    /**
     * A signed action (see `signL1Action`; the Steward signs the service's own). Never retried:
     * an order must not go twice. Sent through the SDK's transport as signed, since the
     * SDK's ExchangeClient signs itself and the service never holds the key.
     */
    exchange: async (body: ExchangeRequest) => {
      let raw: unknown;
      try {
        raw = await exchangeTransport.request("exchange", body);
      } catch (error) {
        throw upstreamError("/exchange", error);
      }
      return parseUpstream(SERVICE, ExchangeResponse, raw, "/exchange");
    },
  };
}

export type HyperliquidClient = ReturnType<typeof createHyperliquidClient>;
