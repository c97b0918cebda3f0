import { pino } from "pino";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../api/app.ts";
import { pnlSeries } from "../../api/perps/pnl-series.ts";
import { defaultApiSettings } from "../../api/settings.ts";
import { requestAs } from "../../api/testing/client.ts";
import { responseChecker } from "../../api/testing/openapi.ts";
import { POLLER_LIMITS } from "../../jobs/limits.ts";
import { type PerpsPollContext, pollPerpsAccount } from "../../jobs/pollers/perps.ts";
import { add, divDown, parseDec, sub, sum, toDecString, ZERO } from "../../lib/agents/decimal.ts";
import { createHyperliquidClient } from "../../services/hyperliquid/client.ts";
import type { ClearinghouseState, Fill } from "../../services/hyperliquid/protocol.ts";
import { pollerWorld } from "../pollers/world.ts";

// what: GET /v2/agents/{agent}/perps and /perps/pnl over a real Postgres filled by the real perps
// poller from the venue stand-in over HTTP: every figure equals a recomputation from the
// venue's own answers (clearinghouseState, its fills and ledger), deposits, withdrawals and
// transfers never count as PnL, an agent without a perps account gets an empty account, and a
// bad window is a 400 in the error envelope.

let w: Awaited<ReturnType<typeof pollerWorld>>;
let app: ReturnType<typeof createApp>;
let check: ReturnType<typeof responseChecker>;
const USER = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
/** Another account on the venue, not an agent's: it sends USDC to the trader and receives some. */
const OTHER = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
const HOUR = 3_600_000;

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked by assertions and the OpenAPI schema
type Body = Record<string, any>;

async function get(template: string, path: string) {
  const res = await requestAs(app, path);
  const body = (await res.json()) as Body;
  expect(check(template, "get", res.status, body)).toEqual([]);
  return { status: res.status, body };
}

/**
 * The perps account once the API shows the poll that ended at or after `polled` (ms): its
 * answers move with the poller's notification, which reaches the API's listener a moment after
 * the poll's commit.
 */
async function accountAfter(polled: number): Promise<Body> {
  for (let i = 0; ; i++) {
    const { body } = await get("/v2/agents/{agent}/perps", "/v2/agents/trader/perps");
    if (body.data.asOf && Date.parse(body.data.asOf) >= polled) return body.data;
    if (i >= 100) throw new Error(`no answer after the poll of ${new Date(polled).toISOString()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function ctx(): PerpsPollContext {
  return {
    sql: w.db.sql,
    hl: createHyperliquidClient({ apiUrl: w.hlUrl, retries: 0, timeoutMs: 5_000 }),
    log: pino({ level: "silent" }),
    sweepEveryMs: POLLER_LIMITS.perps.sweepEveryMs,
    pacing: {
      sql: w.db.sql,
      budget: { venue: "hyperliquid", limit: 100_000, windowMs: 60_000 },
      backoffMs: 1_000,
      maxBackoffMs: 1_000,
    },
  };
}

const venue = async () =>
  (await w.control("GET", `/state?user=${USER}`)) as {
    clearinghouse: ClearinghouseState;
    account: { fills: Fill[] };
  };

beforeAll(async () => {
  w = await pollerWorld();
  await w.addAgent("no-perps");
  await w.addAgent("trader", USER);
  app = createApp({
    logger: pino({ level: "silent" }),
    env: "test",
    sql: w.db.sql,
    settings: defaultApiSettings(),
    headBlock: async () => undefined,
  });
  check = responseChecker((await (await app.request("/openapi.json")).json()) as never);
}, 60_000);
afterAll(() => w?.stop());

describe("perps reads", () => {
  it("answers an agent without a perps account with an empty account, and one not polled yet as pending", async () => {
    const none = await get("/v2/agents/{agent}/perps", "/v2/agents/no-perps/perps");
    expect(none.status).toBe(200);
    expect(none.body.data).toMatchObject({
      address: null,
      status: "not_connected",
      accountValue: "0",
      positions: [],
      pnl: { realized: "0", fees: "0", unrealized: "0", total: "0" },
      trades: { fills: 0, wins: 0, losses: 0 },
    });
    const series = await get(
      "/v2/agents/{agent}/perps/pnl",
      "/v2/agents/no-perps/perps/pnl?window=all",
    );
    expect(series.body.data).toMatchObject({ address: null, window: "all", points: [], pnl: "0" });
    const pending = await get("/v2/agents/{agent}/perps", "/v2/agents/trader/perps");
    expect(pending.body.data).toMatchObject({ address: USER, status: "pending", asOf: null });
  });

  it("refuses an unknown window and a malformed agent in the error envelope, and 404s an unknown agent", async () => {
    const bad = await get("/v2/agents/{agent}/perps/pnl", "/v2/agents/trader/perps/pnl?window=2d");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ ok: false, error: "validation_failed" });
    expect(bad.body.details.map((d: { path: string }) => d.path)).toContain("window");
    const addr = await get("/v2/agents/{agent}/perps", "/v2/agents/0x1234/perps");
    expect(addr.status).toBe(400);
    expect(addr.body.error).toBe("validation_failed");
    const missing = await get("/v2/agents/{agent}/perps", "/v2/agents/nobody/perps");
    expect(missing.status).toBe(404);
  });

  it("serves the account, positions, PnL and wins/losses exactly as the venue answered", async () => {
    const now = Date.now();
    await w.control("PUT", "/marks", { BTC: 65000, ETH: 3200 });
    await w.control("POST", "/deposit", { user: USER, usdc: "1000", time: now - 2 * HOUR });
    // An account's first poll reads only its state; its sweep due at once reads the history too
    // (the deposit two hours ago), as a sweep period later would.
    expect(await pollPerpsAccount({ ...ctx(), sweepEveryMs: 0 }, "trader", USER)).toMatchObject({
      full: true,
    });
    // The first poll as if an hour ago: the series' base (its deposit came before it).
    const base = (await venue()).clearinghouse.marginSummary.accountValue;
    await w.db.sql`update app.perps_account_hours set hour = hour - interval '1 hour',
      venue_time = ${new Date(now - HOUR)} where address = ${USER}`;

    await w.control("POST", "/fill", { user: USER, coin: "BTC", side: "B", sz: "0.1" });
    await w.control("PUT", "/marks", { BTC: 66000 });
    await w.control("POST", "/close", { user: USER, coin: "BTC" }); // a win
    await w.control("POST", "/fill", { user: USER, coin: "ETH", side: "A", sz: "1" });
    await w.control("PUT", "/marks", { ETH: 3300 });
    await w.control("POST", "/close", { user: USER, coin: "ETH" }); // a loss
    await w.control("POST", "/deposit", { user: USER, usdc: "500" });
    await w.control("POST", "/withdraw", { user: USER, usdc: "200" });
    // Transfers on the venue: to and from another account (the sender pays the 1 USDC fee),
    // from and to the spot balance. Money moved, not made.
    await w.control("POST", "/deposit", { user: OTHER, usdc: "100" });
    await w.control("POST", "/transfer", { user: USER, destination: OTHER, usdc: "30" });
    await w.control("POST", "/transfer", { user: OTHER, destination: USER, usdc: "50" });
    await w.control("POST", "/class-transfer", { user: USER, usdc: "40", toPerp: true });
    await w.control("POST", "/class-transfer", { user: USER, usdc: "10", toPerp: false });
    await w.control("POST", "/fill", { user: USER, coin: "SOL", side: "A", sz: "10" });
    await w.control("PUT", "/marks", { SOL: 147.5 });
    const polled = Date.now();
    expect(await pollPerpsAccount(ctx(), "trader", USER)).toMatchObject({ full: true });
    const answered = Date.now();

    // The marks stand still (no walk): the state now is the state the poller read.
    const v = await venue();
    const ch = v.clearinghouse;
    const d = await accountAfter(polled);
    expect(d.status).toBe("ok");
    expect(Date.parse(d.asOf)).toBeGreaterThanOrEqual(polled);
    expect(Date.parse(d.asOf)).toBeLessThanOrEqual(answered);
    expect(parseDec(d.accountValue)).toEqual(norm(ch.marginSummary.accountValue));
    expect(parseDec(d.withdrawable)).toEqual(norm(ch.withdrawable));
    // One open position, the short SOL, as the venue reported it.
    expect(ch.assetPositions).toHaveLength(1);
    const p = (ch.assetPositions[0] as ClearinghouseState["assetPositions"][number]).position;
    expect(d.positions).toEqual([
      {
        coin: "SOL",
        side: "short",
        size: "10",
        entryPrice: p.entryPx,
        markPrice: toDecString(divDown(parseDec(p.positionValue), parseDec("10"), 8)),
        positionValue: p.positionValue,
        leverage: { type: p.leverage.type, value: p.leverage.value },
        liquidationPrice: p.liquidationPx,
        unrealizedPnl: p.unrealizedPnl,
        marginUsed: p.marginUsed,
      },
    ]);
    expect(Number(d.positions[0].markPrice)).toBeCloseTo(147.5, 5);
    // Realized, fees, wins and losses: the venue's own fills, summed here.
    const closed = v.account.fills.map((f) => parseDec(f.closedPnl));
    const realized = sum(closed);
    const fees = sum(v.account.fills.map((f) => parseDec(f.fee)));
    const unrealized = parseDec(p.unrealizedPnl);
    expect(d.pnl).toEqual({
      realized: toDecString(realized),
      fees: toDecString(fees),
      unrealized: toDecString(unrealized),
      total: toDecString(sub(add(realized, unrealized), fees)),
    });
    expect(d.trades).toEqual({
      fills: 5,
      wins: closed.filter((x) => x.v > 0n).length,
      losses: closed.filter((x) => x.v < 0n).length,
    });
    expect(d.trades).toMatchObject({ wins: 1, losses: 1 });

    // The series: the base an hour ago, then now; +500, -(200 + the venue's 1 fee), -(30 + 1)
    // and +50 between accounts, +40 and -10 with spot are flows (348), so the PnL is the
    // account value's change minus them, and equals the trading result the fills give (to the
    // venue's rounding of each figure to 6 decimals).
    const series = await get(
      "/v2/agents/{agent}/perps/pnl",
      "/v2/agents/trader/perps/pnl?window=1d",
    );
    const s = series.body.data;
    expect(s.points.map((x: Body) => x.time)).toEqual([new Date(now - HOUR).toISOString(), d.asOf]);
    const expectedPnl = sub(sub(norm(ch.marginSummary.accountValue), norm(base)), parseDec("348"));
    expect(s.points[0]).toMatchObject({ pnl: "0", netFlows: "0" });
    expect(s.points[1].netFlows).toBe("348");
    const moves = await w.db.sql<{ event_type: string; data: Body }[]>`
      select event_type, data from app.agent_events where agent_id = 'trader'
        and event_type like 'perps.transfer.%' order by occurred_at, id`;
    expect(
      moves.map((m) => [m.event_type, m.data.kind, m.data.usdc, m.data.fee, m.data.peer]),
    ).toEqual([
      ["perps.transfer.out", "internalTransfer", "30", "1", OTHER],
      ["perps.transfer.in", "internalTransfer", "50", undefined, OTHER],
      ["perps.transfer.in", "accountClassTransfer", "40", undefined, undefined],
      ["perps.transfer.out", "accountClassTransfer", "10", undefined, undefined],
    ]);
    expect(s.pnl).toBe(toDecString(expectedPnl));
    expect(Math.abs(Number(s.pnl) - Number(d.pnl.total))).toBeLessThan(1e-5);

    // A sweep reads the same fills again (its overlap): the totals the poller keeps beside the
    // fills count each once, and equal the sums over the stored fills.
    const swept = Date.now();
    expect(await pollPerpsAccount({ ...ctx(), sweepEveryMs: 0 }, "trader", USER)).toMatchObject({
      events: 0,
      full: true,
    });
    const again = await accountAfter(swept);
    expect({ pnl: again.pnl, trades: again.trades }).toEqual({ pnl: d.pnl, trades: d.trades });
    const [stored] = await w.db.sql`select sum((data->>'closedPnl')::numeric)::text as realized,
      sum((data->>'fee')::numeric)::text as fees, count(*)::int as fills
      from app.agent_events where agent_id = 'trader' and event_type = 'trade.fill'`;
    expect(toDecString(parseDec(stored?.realized))).toBe(toDecString(realized));
    expect(toDecString(parseDec(stored?.fees))).toBe(toDecString(fees));
    expect(stored?.fills).toBe(5);
  });

  it("gives the same PnL over a longer window whose base predates the deposits", async () => {
    // A stored hour three days ago with nothing in the account: 7d and all start there, and
    // the 1000 deposited since is a flow, not a gain.
    await w.db.sql`insert into app.perps_account_hours (address, hour, account_value, polled_at,
        venue_time)
      values (${USER}, date_trunc('hour', now() - interval '3 days'), 0, now() - interval '3 days',
        now() - interval '3 days')`;
    const short = (
      await get("/v2/agents/{agent}/perps/pnl", "/v2/agents/trader/perps/pnl?window=1d")
    ).body.data;
    for (const window of ["7d", "30d", "all"]) {
      const long = (
        await get("/v2/agents/{agent}/perps/pnl", `/v2/agents/trader/perps/pnl?window=${window}`)
      ).body.data;
      expect(long.points).toHaveLength(3);
      expect(long.points[0]).toMatchObject({ accountValue: "0", pnl: "0" });
      expect(long.points[2].netFlows).toBe("1348");
      expect(long.pnl).toBe(short.pnl);
    }
    // The default window is 7d.
    const dflt = (await get("/v2/agents/{agent}/perps/pnl", "/v2/agents/trader/perps/pnl")).body
      .data;
    expect(dflt.window).toBe("7d");
  });
});

describe("pnlSeries", () => {
  it("takes out flows after the base and up to each point, and none before or at the base", () => {
    const t = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
    const points = pnlSeries(
      [
        { time: t(1), value: "100" },
        { time: t(2), value: "160" },
        { time: t(3), value: "90.5" },
      ],
      [
        { time: t(1), amount: parseDec("100") },
        { time: t(2), amount: parseDec("50") },
        { time: t(3), amount: sub(ZERO, parseDec("71")) },
      ],
    );
    expect(points.map((p) => [p.netFlows, p.pnl])).toEqual([
      ["0", "0"],
      ["50", "10"],
      ["-21", "11.5"],
    ]);
    expect(pnlSeries([], [])).toEqual([]);
  });
});

/** A venue decimal as the API writes it (no trailing zeros). */
const norm = (x: string) => parseDec(toDecString(parseDec(x)));
