import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PolicyWorld, startPolicyWorld } from "./harness.ts";

// "Open positions are not affected by a new version and closing is always allowed"
// (docs/policies.md): a close under a stricter version, through the real API, signer stand-in
// and venue stand-in.

let w: PolicyWorld;
beforeAll(async () => {
  w = await startPolicyWorld();
}, 240_000);
afterAll(async () => {
  await w?.stop();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${w.apiUrl}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${w.agent.apiKey}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const order = (body: Record<string, unknown>) =>
  call("POST", `/v2/agents/${w.agent.token}/orders`, body);
const policy = (hyperliquid: Record<string, unknown>, maxLeverage: number) =>
  call("PUT", `/v2/agents/${w.agent.token}/policy`, {
    venues: { hyperliquid },
    sides: "both",
    maxLeverage,
    maxPositionUsd: "1000",
    maxOpenPositions: 3,
    dailyOpenBudgetUsd: "700",
  });

async function btc() {
  const r = await fetch(`${w.hlUrl}/info`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "clearinghouseState", user: w.agent.wallet }),
  });
  const state = (await r.json()) as {
    assetPositions: { position: { coin: string; szi: string; leverage: { value: number } } }[];
  };
  return state.assetPositions.find((a) => a.position.coin === "BTC")?.position;
}

describe("a close under a stricter policy version", () => {
  it("goes through with its leverage named, and leaves the leverage as it was", async () => {
    expect((await policy({ assets: ["BTC"] }, 3)).status).toBe(200);
    const open = await order({
      venue: "hyperliquid",
      asset: "BTC",
      side: "long",
      size: "0.0077",
      leverage: 2,
    });
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    expect((await btc())?.leverage.value).toBe(2);

    // BTC denied and maxLeverage 1: nothing may open, but the long still closes.
    expect((await policy({ assets: ["*"], deny: ["BTC"] }, 1)).status).toBe(200);
    const reopen = await order({
      venue: "hyperliquid",
      asset: "BTC",
      side: "long",
      size: "0.0001",
      leverage: 1,
    });
    expect(reopen.body).toMatchObject({ error: "policy_denied", code: "asset_denied" });
    const close = await order({
      venue: "hyperliquid",
      asset: "BTC",
      side: "short",
      size: "0.0077",
      leverage: 2,
      reduceOnly: true,
    });
    expect(close.status, JSON.stringify(close.body)).toBe(200);
    // A reduce-only order changes no leverage: nothing was signed for it.
    expect((close.body.data as Record<string, unknown>).leverageTx).toBeUndefined();
    expect(Number((await btc())?.szi ?? "0")).toBe(0);
  });
});
