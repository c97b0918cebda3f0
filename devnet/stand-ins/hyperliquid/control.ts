import { Hono } from "hono";
import { z } from "zod";
import { toWire } from "../../../services/hyperliquid/protocol.ts";
import type { Venue } from "./venue.ts";
import type { WeightMeter } from "./weight.ts";

/** A failure armed by `PUT /_control/fail`: the next `remaining` requests (of `types`) fail. */
export type Failure = {
  mode: "error" | "hang" | "rate-limit";
  remaining: number;
  types?: string[];
};

/** An address in a request, lowercased as the venue keys accounts. */
export const Addr = z
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

/** What the controls reach of the running stand-in besides its venue. */
export type ControlDeps = {
  venue: Venue;
  /** Requests served, by `/info` type and `exchange`. */
  requests: Record<string, number>;
  /** The rate limit's meter and its request log. */
  meter: WeightMeter;
  /** Sets the marks' random walk (0: off); returns what is now in force. */
  walk: (everyMs: number, stepBps?: number) => { everyMs: number; stepBps: number };
  stepBps: () => number;
  setFailure: (f: Failure | undefined) => void;
};

/**
 * The venue's controls for tests, the seed and the trading-policies issue, mounted under
 * `/_control/` (docs/pollers.md): marks and their walk, deposits, withdrawals, fills, closes,
 * liquidations, API wallets, injected failures, and the state.
 */
export function controlRoutes(d: ControlDeps): Hono {
  const { venue } = d;
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
      requests: d.requests,
      bridge: venue.state.bridge
        ? { nextBlock: venue.state.bridge.nextBlock, seen: venue.state.bridge.seen.length }
        : null,
    });
  });
  // The rate limit: its window now, 429s sent, and every /info request (`since`: ms).
  control.get("/weight", (c) => {
    const since = Number(c.req.query("since") ?? 0);
    return c.json({ ...d.meter.snapshot(), log: d.meter.log.filter((m) => m.at >= since) });
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
    return c.json(d.walk(b.everyMs, b.stepBps));
  });
  control.post("/walk/step", async (c) => {
    const b = await read(c, z.object({ ticks: z.number().int().min(1).max(10_000).default(1) }));
    for (let i = 0; i < b.ticks; i++) venue.walk(d.stepBps());
    venue.save();
    return c.json({ marks: venue.state.marks });
  });
  const money = z.object({ user: Addr, usdc: Num, time: z.number().int().optional() });
  const withdrawable = (user: string) => {
    const s = venue.summary(user);
    return s.accountValue - s.marginUsed;
  };
  control.post("/deposit", async (c) => {
    const b = await read(c, money);
    const u = venue.deposit(b.user, b.usdc, b.time);
    venue.save();
    return c.json(u);
  });
  control.post("/withdraw", async (c) => {
    const b = await read(c, money);
    if (b.usdc + 1 > withdrawable(b.user))
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
  control.post("/transfer", async (c) => {
    const b = await read(c, money.extend({ destination: Addr }));
    if (b.usdc + 1 > withdrawable(b.user))
      return c.json({ error: "Insufficient balance for internal transfer" }, 400);
    const u = venue.transfer(b.user, b.destination, b.usdc, 1, b.time);
    venue.save();
    return c.json(u);
  });
  control.post("/class-transfer", async (c) => {
    const b = await read(c, money.extend({ toPerp: z.boolean() }));
    if (!b.toPerp && b.usdc > withdrawable(b.user))
      return c.json({ error: "Insufficient balance for transfer to spot" }, 400);
    const u = venue.classTransfer(b.user, b.usdc, b.toPerp, b.time);
    venue.save();
    return c.json(u);
  });
  // A fill or close of a user's position in a coin, at `px` (default the mark) and `time`.
  const trade = z.object({
    user: Addr,
    coin: z.string(),
    px: Num.optional(),
    time: z.number().int().optional(),
  });
  control.post("/fill", async (c) => {
    const b = await read(c, trade.extend({ side: z.enum(["B", "A"]), sz: Num }));
    const f = venue.fill(b.user, b.coin, b.side === "B", b.sz, b.px ?? venue.mark(b.coin), {
      time: b.time,
    });
    venue.save();
    return c.json(f);
  });
  control.post("/close", async (c) => {
    const b = await read(c, trade);
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
        mode: z.enum(["error", "hang", "rate-limit", "off"]),
        count: z.number().int().positive().default(1_000_000),
        types: z.array(z.string()).optional(),
      }),
    );
    d.setFailure(
      b.mode === "off" ? undefined : { mode: b.mode, remaining: b.count, types: b.types },
    );
    return c.json({ ok: true });
  });
  return control;
}
