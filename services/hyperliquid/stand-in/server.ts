import { setTimeout as sleep } from "node:timers/promises";
import { Hono } from "hono";
import { z } from "zod";
import type { Logger } from "../../../lib/logger.ts";
import { STAND_IN_LIMITS } from "../../limits.ts";
import { type ExchangeRequest, INFO_PAGE, infoWeight, toWire } from "../protocol.ts";
import { type BridgeSettings, watchBridge } from "./bridge.ts";
import { handleExchange } from "./exchange.ts";
import { UNIVERSE, Venue } from "./venue.ts";

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
  /** Info weight per minute per client (the venue's 1200); tests lower it to see 429s. */
  weightPerMinute?: number;
  /** How long a request told to hang is held before it is answered with a 503. */
  hangMs?: number;
  /** Longest answer of a time-range query (the venue's: fills 2000, ledger 500). */
  pageSize?: { fills: number; ledger: number };
  /** USDC transfers to this bridge on Arbitrum are credited as deposits (bridge.ts). */
  bridge?: BridgeSettings;
  /** How often the bridge is scanned (default STAND_IN_LIMITS.hyperliquidBridgeEveryMs). */
  bridgeEveryMs?: number;
};

const Addr = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .transform((s) => s.toLowerCase());
const Num = z.union([
  z.number(),
  z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .transform(Number),
]);
const Info = z.discriminatedUnion("type", [
  z.object({ type: z.literal("clearinghouseState"), user: Addr, dex: z.string().optional() }),
  z.object({
    type: z.enum(["userFillsByTime", "userNonFundingLedgerUpdates"]),
    user: Addr,
    startTime: z.number().int().nonnegative(),
    endTime: z.number().int().nonnegative().nullish(),
    aggregateByTime: z.boolean().optional(),
  }),
  z.object({ type: z.literal("userFills"), user: Addr }),
  z.object({ type: z.enum(["allMids", "meta", "metaAndAssetCtxs"]), dex: z.string().optional() }),
]);

type Failure = { mode: "error" | "hang"; remaining: number; types?: string[] };

/**
 * A local stand-in of Hyperliquid: `POST /info` (clearinghouseState, userFills,
 * userFillsByTime, userNonFundingLedgerUpdates, allMids, meta, metaAndAssetCtxs) and
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
  let weight = { windowStart: Date.now(), used: 0 };

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
    const now = Date.now();
    if (now - weight.windowStart >= 60_000) weight = { windowStart: now, used: 0 };
    weight.used += infoWeight(q.type);
    if (weight.used > (p.weightPerMinute ?? STAND_IN_LIMITS.hyperliquidWeightPerMinute))
      return c.json(null, 429);
    const failed = await failing(q.type);
    if (failed) return failed;
    switch (q.type) {
      case "clearinghouseState":
        return c.json(venue.clearinghouse(q.user));
      case "userFills":
        return c.json((venue.account(q.user)?.fills ?? []).slice(-page.fills).reverse());
      case "userFillsByTime":
      case "userNonFundingLedgerUpdates": {
        const a = venue.account(q.user);
        const rows: { time: number }[] =
          (q.type === "userFillsByTime" ? a?.fills : a?.ledger) ?? [];
        const end = q.endTime ?? Number.MAX_SAFE_INTEGER;
        const limit = q.type === "userFillsByTime" ? page.fills : page.ledger;
        return c.json(rows.filter((r) => r.time >= q.startTime && r.time <= end).slice(0, limit));
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
    const failed = await failing("exchange");
    if (failed) return failed;
    return c.json(await handleExchange(venue, body, isMainnet));
  });

  // ---- controls for tests, the seed and the trading-policies issue ------------------------
  const control = new Hono();
  const read = async <S extends z.ZodType>(c: { req: { json: () => Promise<unknown> } }, s: S) =>
    s.parse(await c.req.json().catch(() => ({})));
  control.onError((e, c) => c.json({ error: e.message }, 400));
  control.get("/state", (c) => {
    const user = c.req.query("user");
    return c.json({
      marks: venue.state.marks,
      orders: venue.state.orders.filter((o) => !user || o.user === user.toLowerCase()),
      ...(user
        ? { account: venue.account(user) ?? null, clearinghouse: venue.clearinghouse(user) }
        : {}),
      requests,
      bridge: venue.state.bridge
        ? { nextBlock: venue.state.bridge.nextBlock, seen: venue.state.bridge.seen.length }
        : null,
    });
  });
  control.put("/marks", async (c) => {
    const marks = await read(c, z.record(z.string(), Num));
    venue.setMarks(marks);
    venue.save();
    return c.json({ marks: venue.state.marks });
  });
  control.put("/walk", async (c) => {
    const b = await read(
      c,
      z.object({
        everyMs: z.number().int().nonnegative(),
        stepBps: z.number().positive().optional(),
      }),
    );
    walkEveryMs = b.everyMs;
    stepBps = b.stepBps ?? stepBps;
    schedule();
    return c.json({ everyMs: walkEveryMs, stepBps });
  });
  control.post("/walk/step", async (c) => {
    const b = await read(c, z.object({ ticks: z.number().int().min(1).max(10_000).default(1) }));
    for (let i = 0; i < b.ticks; i++) venue.walk(stepBps);
    venue.save();
    return c.json({ marks: venue.state.marks });
  });
  const money = z.object({ user: Addr, usdc: Num, time: z.number().int().optional() });
  control.post("/deposit", async (c) => {
    const b = await read(c, money);
    const u = venue.deposit(b.user, b.usdc, b.time);
    venue.save();
    return c.json(u);
  });
  control.post("/withdraw", async (c) => {
    const b = await read(c, money);
    const s = venue.summary(b.user);
    if (b.usdc + 1 > s.accountValue - s.marginUsed)
      return c.json({ error: "Insufficient withdrawable balance" }, 400);
    (venue.account(b.user, true) as { cash: number }).cash -= b.usdc + 1;
    const u = venue.ledger(
      b.user,
      { type: "withdraw", usdc: toWire(b.usdc), nonce: Date.now(), fee: "1.0" },
      b.time,
    );
    venue.save();
    return c.json(u);
  });
  control.post("/fill", async (c) => {
    const b = await read(
      c,
      z.object({
        user: Addr,
        coin: z.string(),
        side: z.enum(["B", "A"]),
        sz: Num,
        px: Num.optional(),
        time: z.number().int().optional(),
      }),
    );
    const f = venue.fill(b.user, b.coin, b.side === "B", b.sz, b.px ?? venue.mark(b.coin), {
      time: b.time,
    });
    venue.save();
    return c.json(f);
  });
  control.post("/close", async (c) => {
    const b = await read(
      c,
      z.object({
        user: Addr,
        coin: z.string(),
        px: Num.optional(),
        time: z.number().int().optional(),
      }),
    );
    const pos = venue.account(b.user)?.positions[b.coin];
    if (!pos) return c.json({ error: `no ${b.coin} position` }, 400);
    const f = venue.fill(
      b.user,
      b.coin,
      pos.szi < 0,
      Math.abs(pos.szi),
      b.px ?? venue.mark(b.coin),
      { time: b.time },
    );
    venue.save();
    return c.json(f);
  });
  control.post("/liquidate", async (c) => {
    const b = await read(c, z.object({ user: Addr }));
    const u = venue.liquidate(b.user);
    venue.save();
    return u ? c.json(u) : c.json({ error: "no open position" }, 400);
  });
  control.post("/approve-agent", async (c) => {
    const b = await read(c, z.object({ user: Addr, agent: Addr }));
    venue.account(b.user, true);
    venue.state.agents[b.agent] = b.user;
    venue.save();
    return c.json({ ok: true });
  });
  control.put("/fail", async (c) => {
    const b = await read(
      c,
      z.object({
        mode: z.enum(["error", "hang", "off"]),
        count: z.number().int().positive().default(1_000_000),
        types: z.array(z.string()).optional(),
      }),
    );
    failure = b.mode === "off" ? undefined : { mode: b.mode, remaining: b.count, types: b.types };
    return c.json({ ok: true });
  });
  app.route("/_control", control);

  function meta() {
    return {
      universe: UNIVERSE.map((u) => ({
        name: u.name,
        szDecimals: u.szDecimals,
        maxLeverage: u.maxLeverage,
        marginTableId: u.maxLeverage,
      })),
      marginTables: [],
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
