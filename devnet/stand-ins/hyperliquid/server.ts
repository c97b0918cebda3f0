import { setTimeout as sleep } from "node:timers/promises";
import { Hono } from "hono";
import { z } from "zod";
import type { Logger } from "../../../lib/logger.ts";
import {
  type ExchangeRequest,
  exchangeWeight,
  INFO_PAGE,
  infoItemsWeight,
  infoWeight,
  toWire,
} from "../../../services/hyperliquid/protocol.ts";
import { STAND_IN_LIMITS } from "../../limits.ts";
import { type BridgeSettings, watchBridge } from "./bridge.ts";
import { Addr, controlRoutes, type Failure } from "./control.ts";
import { handleExchange } from "./exchange.ts";
import { UNIVERSE, Venue } from "./venue.ts";
import { WeightMeter } from "./weight.ts";

export type HyperliquidStandInParameters = {
  log: Logger;
  /** Where the venue's state is kept across restarts; unset: memory only (tests). */
  statePath?: string;
  /** Random walk of the marks: a step every `walkEveryMs` (0: marks move only when told). */
  walkEveryMs?: number;
  walkStepBps?: number;
  seed?: number;
  /** `source` of the signed phantom agent: "a" (mainnet, default) or "b" (testnet). */
  isMainnet?: boolean;
  /** Info weight per window for all clients (the venue's 1200); tests lower it to see 429s. */
  weightPerMinute?: number;
  /** The rate limit's window (the venue's minute); a test compressing time shortens it. */
  weightWindowMs?: number;
  /** How long a request told to hang is held before it is answered with a 503. */
  hangMs?: number;
  /** Longest answer of a time-range query (the venue's: fills 2000, ledger 500). */
  pageSize?: { fills: number; ledger: number };
  /** USDC transfers to this bridge on Arbitrum are credited as deposits (bridge.ts). */
  bridge?: BridgeSettings;
  /** How often the bridge is scanned (default STAND_IN_LIMITS.hyperliquidBridgeEveryMs). */
  bridgeEveryMs?: number;
};

/** Fills kept before `twapId` was served carry none: the venue writes null for non-TWAP fills. */
const withTwap = (f: object) => ({
  ...f,
  twapId: (f as { twapId?: number | null }).twapId ?? null,
});

const Info = z.discriminatedUnion("type", [
  z.object({ type: z.literal("clearinghouseState"), user: Addr, dex: z.string().optional() }),
  z.object({
    type: z.enum(["userFillsByTime", "userNonFundingLedgerUpdates"]),
    user: Addr,
    startTime: z.number().int().nonnegative(),
    endTime: z.number().int().nonnegative().nullish(),
    aggregateByTime: z.boolean().optional(),
  }),
  z.object({
    type: z.enum(["userFills", "openOrders"]),
    user: Addr,
    aggregateByTime: z.boolean().optional(),
    dex: z.string().optional(),
  }),
  z.object({ type: z.enum(["allMids", "meta", "metaAndAssetCtxs"]), dex: z.string().optional() }),
]);

/**
 * A local stand-in of Hyperliquid: `POST /info` (clearinghouseState, userFills,
 * userFillsByTime, userNonFundingLedgerUpdates, openOrders, allMids, meta, metaAndAssetCtxs) and
 * `POST /exchange` (order, cancel, updateLeverage signed as L1 actions), over a venue that
 * keeps accounts, positions, fills, ledger updates, marks on a seeded random walk, resting
 * and trigger orders, and liquidations; with `bridge`, USDC sent to the bridge on Arbitrum is
 * credited as a deposit. Test and seed controls live under `/_control/`
 * (see docs/pollers.md).
 *
 * @example
 * const { app, stop } = createHyperliquidStandIn({ log, walkEveryMs: 0 });
 */
export function createHyperliquidStandIn(p: HyperliquidStandInParameters) {
  const venue = new Venue(p.statePath, p.seed);
  const app = new Hono();
  const page = p.pageSize ?? INFO_PAGE;
  const isMainnet = p.isMainnet ?? true;
  let failure: Failure | undefined;
  let walkEveryMs = p.walkEveryMs ?? 0;
  let stepBps = p.walkStepBps ?? 10;
  const requests: Record<string, number> = {};
  const meter = new WeightMeter(
    p.weightPerMinute ?? STAND_IN_LIMITS.hyperliquidWeightPerMinute,
    p.weightWindowMs ?? 60_000,
  );

  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (timer) clearInterval(timer);
    timer =
      walkEveryMs > 0
        ? setInterval(() => {
            venue.walk(stepBps);
            venue.save();
          }, walkEveryMs)
        : undefined;
    timer?.unref();
  };
  schedule();
  const stopBridge = p.bridge ? watchBridge(venue, p.bridge, p.log, p.bridgeEveryMs) : undefined;

  /** Injected failure for this request type, if any is armed. */
  const failing = async (type: string) => {
    if (!failure || failure.remaining <= 0) return undefined;
    if (failure.types && !failure.types.includes(type)) return undefined;
    failure.remaining--;
    if (failure.mode === "hang") await sleep(p.hangMs ?? 30_000);
    if (failure.mode === "rate-limit") return new Response("null", { status: 429 });
    return new Response("internal error (stand-in told to fail)", {
      status: failure.mode === "hang" ? 503 : 500,
    });
  };

  app.post("/info", async (c) => {
    const parsed = Info.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success)
      return c.text("Failed to deserialize the JSON body into the target type", 422);
    const q = parsed.data;
    requests[q.type] = (requests[q.type] ?? 0) + 1;
    if (!meter.admit(q.type, infoWeight(q.type))) return c.json(null, 429);
    const failed = await failing(q.type);
    if (failed) return failed;
    switch (q.type) {
      case "clearinghouseState":
        return c.json(venue.clearinghouse(q.user));
      case "userFills": {
        const answer = (venue.account(q.user)?.fills ?? []).slice(-page.fills).reverse();
        meter.extra(q.type, infoItemsWeight(q.type, answer.length));
        return c.json(answer.map(withTwap));
      }
      case "openOrders":
        return c.json(venue.openOrders(q.user));
      case "userFillsByTime":
      case "userNonFundingLedgerUpdates": {
        const a = venue.account(q.user);
        const rows: { time: number }[] =
          (q.type === "userFillsByTime" ? a?.fills : a?.ledger) ?? [];
        const end = q.endTime ?? Number.MAX_SAFE_INTEGER;
        const limit = q.type === "userFillsByTime" ? page.fills : page.ledger;
        const answer = rows.filter((r) => r.time >= q.startTime && r.time <= end).slice(0, limit);
        meter.extra(q.type, infoItemsWeight(q.type, answer.length));
        return c.json(q.type === "userFillsByTime" ? answer.map(withTwap) : answer);
      }
      case "allMids":
        return c.json(
          Object.fromEntries(Object.entries(venue.state.marks).map(([k, v]) => [k, toWire(v)])),
        );
      case "meta":
        return c.json(meta());
      case "metaAndAssetCtxs":
        return c.json([
          meta(),
          UNIVERSE.map((u) => {
            const m = toWire(venue.mark(u.name));
            return {
              markPx: m,
              midPx: m,
              oraclePx: m,
              funding: "0.0000125",
              openInterest: "0.0",
              prevDayPx: toWire(u.mark),
              dayNtlVlm: "0.0",
              premium: "0.0",
              impactPxs: [m, m],
            };
          }),
        ]);
    }
  });

  app.post("/exchange", async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as ExchangeRequest | undefined;
    if (!body?.action || typeof body.nonce !== "number" || !body.signature?.r) {
      return c.text("Failed to deserialize the JSON body into the target type", 422);
    }
    requests.exchange = (requests.exchange ?? 0) + 1;
    // Actions share the info requests' weight budget (1 + 1 per 40 batched).
    if (!meter.admit("exchange", exchangeWeight(body.action))) return c.json(null, 429);
    const failed = await failing("exchange");
    if (failed) return failed;
    return c.json(await handleExchange(venue, body, isMainnet));
  });

  app.route(
    "/_control",
    controlRoutes({
      venue,
      requests,
      meter,
      walk: (everyMs, step) => {
        walkEveryMs = everyMs;
        stepBps = step ?? stepBps;
        schedule();
        return { everyMs: walkEveryMs, stepBps };
      },
      stepBps: () => stepBps,
      setFailure: (f) => {
        failure = f;
      },
    }),
  );

  function meta() {
    // Each asset refers to a margin table by id; every table referred to is listed (one tier:
    // the asset's maximum leverage from zero notional), and collateral is USDC (spot token 0).
    const ids = [...new Set(UNIVERSE.map((u) => u.maxLeverage))];
    return {
      universe: UNIVERSE.map((u) => ({
        name: u.name,
        szDecimals: u.szDecimals,
        maxLeverage: u.maxLeverage,
        marginTableId: u.maxLeverage,
      })),
      marginTables: ids.map((id) => [
        id,
        { description: "", marginTiers: [{ lowerBound: "0.0", maxLeverage: id }] },
      ]),
      collateralToken: 0,
    };
  }

  return {
    app,
    venue,
    /** Stops the walk and the bridge scan (a scan under way ends first), then saves. */
    stop: async () => {
      if (timer) clearInterval(timer);
      await stopBridge?.();
      venue.save();
    },
  };
}
