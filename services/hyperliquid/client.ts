import type { z } from "zod";
import { upstreamJson } from "../http.ts";
import { HYPERLIQUID_LIMITS } from "../limits.ts";
import {
  AllMids,
  ClearinghouseState,
  type ExchangeRequest,
  ExchangeResponse,
  Fill,
  type InfoRequest,
  LedgerUpdate,
  Meta,
  MetaAndAssetCtxs,
} from "./protocol.ts";

export type HyperliquidClientParameters = {
  apiUrl: string;
  /** Per-request timeout of info reads; default HYPERLIQUID_LIMITS.infoTimeoutMs. */
  timeoutMs?: number;
  /** Attempts after the first for a failed read; the pollers use 0 (the next tick retries). */
  retries?: number;
};

/**
 * Typed client of Hyperliquid's info and exchange endpoints (the venue or the local stand-in;
 * only `apiUrl` differs). Every answer is checked against `protocol.ts`; a mismatch is an
 * `UpstreamError` of kind `bad_response`, a timeout or 5xx/429 one of kind `unavailable`.
 *
 * @example
 * const hl = createHyperliquidClient({ apiUrl: "https://api.hyperliquid.xyz" });
 * const fills = await hl.userFillsByTime(user, Date.now() - 60_000);
 */
export function createHyperliquidClient(p: HyperliquidClientParameters) {
  const base = p.apiUrl.replace(/\/$/, "");
  const info = async <S extends z.ZodType>(body: InfoRequest, schema: S): Promise<z.infer<S>> => {
    return upstreamJson({
      service: "hyperliquid",
      url: `${base}/info`,
      json: body,
      timeoutMs: p.timeoutMs ?? HYPERLIQUID_LIMITS.infoTimeoutMs,
      retries: p.retries,
      schema,
    });
  };
  const user = (u: string) => u.toLowerCase();
  return {
    clearinghouseState: (u: string) =>
      info({ type: "clearinghouseState", user: user(u) }, ClearinghouseState),
    /** Fills with `startTime <= time <= endTime`, oldest first, at most 2000. */
    userFillsByTime: (u: string, startTime: number, endTime?: number) =>
      info({ type: "userFillsByTime", user: user(u), startTime, endTime }, Fill.array()),
    /** Deposits, withdrawals, liquidations, … with `startTime <= time`, at most 500. */
    userNonFundingLedgerUpdates: (u: string, startTime: number, endTime?: number) =>
      info(
        { type: "userNonFundingLedgerUpdates", user: user(u), startTime, endTime },
        LedgerUpdate.array(),
      ),
    allMids: () => info({ type: "allMids" }, AllMids),
    meta: () => info({ type: "meta" }, Meta),
    metaAndAssetCtxs: () => info({ type: "metaAndAssetCtxs" }, MetaAndAssetCtxs),
    /** A signed action (see `signL1Action`). Never retried: an order must not go twice. */
    exchange: (body: ExchangeRequest) =>
      upstreamJson({
        service: "hyperliquid",
        url: `${base}/exchange`,
        json: body,
        timeoutMs: HYPERLIQUID_LIMITS.exchangeTimeoutMs,
        retries: 0,
        schema: ExchangeResponse,
      }),
  };
}

export type HyperliquidClient = ReturnType<typeof createHyperliquidClient>;
