import { describe, expect, it } from "vitest";
import { EVALUATORS, evaluate, lossFloorBreached } from "./evaluators.ts";
import type { Intent, PolicyState, TradeIntent } from "./intent.ts";
import { INITIAL_RULES, PolicyRules, usdToUnits } from "./model.ts";

const U = (usd: string) => usdToUnits(usd);
const NOON = new Date("2026-11-23T12:00:00Z");
const rules = PolicyRules.parse({
  venues: {
    hyperliquid: { assets: ["BTC", "ETH"], deny: [] },
    "bsc-dex-v2": { assets: ["*"], deny: ["0x00000000000000000000000000000000000000dd"] },
  },
  sides: "both",
  maxLeverage: 3,
  maxPositionUsd: "1000",
  maxOpenPositions: 2,
  dailyOpenBudgetUsd: "1500",
  lossCooldownUsd: "100",
  lossCooldownWindowSec: 3600,
  approveAllowlist: ["0x00000000000000000000000000000000000000aa"],
  allowedUtcHours: [10, 11, 12],
});
const state = (over: Partial<PolicyState> = {}): PolicyState => ({
  now: NOON,
  positions: [],
  openedTodayUsd: 0n,
  realized: [],
  ...over,
});
const open = (over: Partial<TradeIntent> = {}): TradeIntent => ({
  kind: "trade",
  venue: "hyperliquid",
  asset: "BTC",
  side: "long",
  action: "open",
  notionalUsd: U("100"),
  leverage: 2,
  summary: {},
  ...over,
});
const denied = (i: Intent, s = state(), r = rules) => {
  const v = evaluate(i, r, s);
  return v.ok ? "allowed" : `${v.evaluator}:${v.code}`;
};

describe("the evaluator chain", () => {
  it("allows an order inside every limit", () => {
    expect(denied(open())).toBe("allowed");
  });

  it("fails an unknown venue closed, even for a close", () => {
    expect(denied(open({ venue: "binance" }))).toBe("venueAllowlist:venue_unknown");
    expect(denied(open({ venue: "binance", action: "close", notionalUsd: 0n }))).toBe(
      "venueAllowlist:venue_unknown",
    );
    const noPerps = { ...rules, venues: { "bsc-dex-v2": rules.venues["bsc-dex-v2"] } };
    expect(denied(open(), state(), noPerps as PolicyRules)).toBe(
      "venueAllowlist:venue_not_allowed",
    );
    // A position opened under an older version closes even when the venue left the policy.
    expect(denied(open({ action: "close" }), state(), noPerps as PolicyRules)).toBe("allowed");
  });

  it("assets and deny: the deny list wins over *", () => {
    expect(denied(open({ asset: "SOL" }))).toBe("assets:asset_not_allowed");
    expect(denied(open({ venue: "bsc-dex-v2", asset: `0x${"ee".repeat(20)}`, leverage: 1 }))).toBe(
      "allowed",
    );
    expect(denied(open({ venue: "bsc-dex-v2", asset: `0x${"00".repeat(19)}dd` }))).toBe(
      "assets:asset_denied",
    );
  });

  it("sides", () => {
    const longOnly = { ...rules, sides: "long" as const };
    expect(denied(open({ side: "short" }), state(), longOnly)).toBe("sides:side_not_allowed");
    expect(denied(open({ side: "short", action: "close" }), state(), longOnly)).toBe("allowed");
  });

  it("maxLeverage on orders and on leverage changes", () => {
    expect(denied(open({ leverage: 3 }))).toBe("allowed");
    expect(denied(open({ leverage: 4 }))).toBe("maxLeverage:leverage_above_max");
    expect(
      denied({ kind: "leverage", venue: "hyperliquid", asset: "BTC", leverage: 5, summary: {} }),
    ).toBe("maxLeverage:leverage_above_max");
  });

  it("maxPositionUsd counts what the same side already holds at the mark", () => {
    const held = [
      { venue: "hyperliquid", asset: "BTC", side: "long" as const, notionalUsd: U("950") },
    ];
    expect(denied(open({ notionalUsd: U("50") }), state({ positions: held }))).toBe("allowed");
    expect(denied(open({ notionalUsd: U("50.000001") }), state({ positions: held }))).toBe(
      "maxPositionUsd:position_above_max",
    );
    expect(denied(open({ notionalUsd: U("1000.01") }))).toBe("maxPositionUsd:position_above_max");
  });

  it("maxOpenPositions counts across venues; adding to a held market is not a new one", () => {
    const two = [
      { venue: "hyperliquid", asset: "ETH", side: "long" as const, notionalUsd: U("1") },
      {
        venue: "bsc-dex-v2",
        asset: `0x${"ee".repeat(20)}`,
        side: "long" as const,
        notionalUsd: U("1"),
      },
    ];
    expect(denied(open(), state({ positions: two }))).toBe(
      "maxOpenPositions:open_positions_at_max",
    );
    expect(denied(open({ asset: "ETH" }), state({ positions: two }))).toBe("allowed");
  });

  it("dailyOpenBudgetUsd: new notional only, exact to the cent", () => {
    expect(denied(open(), state({ openedTodayUsd: U("1400") }))).toBe("allowed");
    expect(denied(open(), state({ openedTodayUsd: U("1400.01") }))).toBe(
      "dailyOpenBudgetUsd:daily_budget_exceeded",
    );
    expect(denied(open({ action: "close" }), state({ openedTodayUsd: U("1500") }))).toBe("allowed");
  });

  it("allowedUtcHours, with closes always allowed", () => {
    const late = new Date("2026-11-23T13:00:00Z");
    expect(denied(open(), state({ now: late }))).toBe("allowedUtcHours:outside_allowed_hours");
    expect(denied(open({ action: "close" }), state({ now: late }))).toBe("allowed");
  });

  it("loss cooldown: blocked from the breach until UTC midnight, closes allowed", () => {
    const realized = [
      { at: new Date("2026-11-23T11:00:00Z"), usd: U("-60") },
      { at: new Date("2026-11-23T11:30:00Z"), usd: U("-40") },
    ];
    expect(denied(open(), state({ realized }))).toBe("lossCooldown:loss_cooldown");
    expect(denied(open({ action: "close" }), state({ realized }))).toBe("allowed");
    // Outside the window of each other: never below the floor together.
    const apart = [
      { at: new Date("2026-11-23T09:00:00Z"), usd: U("-60") },
      { at: new Date("2026-11-23T11:30:00Z"), usd: U("-40") },
    ];
    expect(denied(open(), state({ realized: apart }))).toBe("allowed");
    // A breach yesterday ends at midnight.
    const yesterday = realized.map((r) => ({ ...r, at: new Date(r.at.getTime() - 86_400_000) }));
    expect(denied(open(), state({ realized: yesterday }))).toBe("allowed");
    expect(lossFloorBreached(realized, U("100.01"), 3600, NOON)).toBeUndefined();
  });

  it("approveAllowlist covers approvals and transfers", () => {
    const to = "0x00000000000000000000000000000000000000aa";
    expect(denied({ kind: "approve", to, token: "0x1", amount: "1", summary: {} })).toBe("allowed");
    expect(denied({ kind: "approve", to: `0x${"bb".repeat(20)}`, amount: "1", summary: {} })).toBe(
      "approveAllowlist:approve_not_allowed",
    );
    expect(denied({ kind: "transfer", to: `0x${"bb".repeat(20)}`, amount: "1", summary: {} })).toBe(
      "approveAllowlist:transfer_not_allowed",
    );
  });

  it("an unreadable call is never allowed; a manual one says so", () => {
    const v = evaluate(
      { kind: "unknown", manual: true, code: "call_unknown", reason: "?", summary: {} },
      rules,
      state(),
    );
    expect(v).toMatchObject({ ok: false, evaluator: "knownCall", manual: true });
  });

  it("the initial policy allows no trade, approval or transfer", () => {
    expect(denied(open(), state(), INITIAL_RULES)).toBe("venueAllowlist:venue_not_allowed");
    expect(
      denied({ kind: "transfer", to: "0x1", amount: "1", summary: {} }, state(), INITIAL_RULES),
    ).toBe("approveAllowlist:transfer_not_allowed");
    expect(denied({ kind: "platform", summary: {} }, state(), INITIAL_RULES)).toBe("allowed");
  });

  it("the chain's order is the documented one", () => {
    expect(EVALUATORS.map((e) => e.name)).toEqual([
      "knownCall",
      "venueAllowlist",
      "allowedUtcHours",
      "assets",
      "sides",
      "maxLeverage",
      "maxPositionUsd",
      "maxOpenPositions",
      "dailyOpenBudgetUsd",
      "lossCooldown",
      "approveAllowlist",
    ]);
  });
});

describe("the policy model", () => {
  const valid = {
    venues: { hyperliquid: { assets: ["BTC"] } },
    sides: "long",
    maxLeverage: 5,
    maxPositionUsd: "5000",
    maxOpenPositions: 10,
    dailyOpenBudgetUsd: "10000",
  };
  it("takes the ceilings and refuses anything above, naming field and ceiling", () => {
    expect(PolicyRules.safeParse(valid).success).toBe(true);
    for (const [field, value, ceiling] of [
      ["maxLeverage", 6, "5"],
      ["maxPositionUsd", "5000.000001", "5000"],
      ["maxOpenPositions", 11, "10"],
      ["dailyOpenBudgetUsd", "10001", "10000"],
    ] as const) {
      const r = PolicyRules.safeParse({ ...valid, [field]: value });
      expect(r.success, field).toBe(false);
      const issue = r.error?.issues[0];
      expect(issue?.path).toEqual([field]);
      expect(issue?.message).toContain(ceiling);
    }
  });
  it("refuses unknown venues, unknown fields, floats as amounts and bad hours", () => {
    for (const bad of [
      { ...valid, venues: { binance: { assets: ["BTC"] } } },
      { ...valid, extra: 1 },
      { ...valid, maxPositionUsd: 100.5 },
      { ...valid, maxPositionUsd: "1e3" },
      { ...valid, maxLeverage: 2.5 },
      { ...valid, allowedUtcHours: [24] },
      { ...valid, allowedUtcHours: [1, 1] },
      { ...valid, venues: { hyperliquid: { assets: ["*", "BTC"] } } },
      { ...valid, approveAllowlist: ["0x12"] },
    ]) {
      expect(PolicyRules.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
  it("lowercases addresses and fills defaults", () => {
    const p = PolicyRules.parse({
      ...valid,
      approveAllowlist: ["0x00000000000000000000000000000000000000AA"],
    });
    expect(p.approveAllowlist).toEqual(["0x00000000000000000000000000000000000000aa"]);
    expect(p.lossCooldownWindowSec).toBe(86_400);
    expect(p.venues.hyperliquid?.deny).toEqual([]);
  });
});
