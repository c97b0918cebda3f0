import { erc20Abi, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, type PolicyWorld, startPolicyWorld } from "./harness.ts";

// Issue 51 item 3, "done when": a sale over the agent's sell pledge is refused at the signer
// and appears as an anomaly; a loosening waits its delay. Through the real API, the steward
// stand-in over HTTP, anvil with the devnet DEX, Postgres. The agent's own token here is the
// harness's spot token (a WBNB pair on the router); every allowance is recomputed from the
// token's own `balanceOf`.

const DAY = 86_400_000;
let w: PolicyWorld;
beforeAll(async () => {
  w = await startPolicyWorld();
  await w.sql`update app.agents set token_address = ${w.spotToken.toLowerCase()}, launched_at = now()
    where agent_id = ${w.agent.agentId}`;
}, 240_000);
afterAll(async () => {
  await w?.stop();
});

const call = async (method: string, path: string, body?: unknown, auth?: string) => {
  const res = await fetch(`${w.apiUrl}${path}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(auth === "" ? {} : { authorization: auth ?? `Bearer ${w.agent.apiKey}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const pledgePath = () => `/v2/agents/${w.spotToken.toLowerCase()}/pledge`;
const sell = (amount: bigint) =>
  call("POST", `/v2/agents/${w.agent.agentId}/orders`, {
    venue: "bsc-dex-v2",
    side: "sell",
    token: w.spotToken,
    amount: amount.toString(),
  });
const balance = () =>
  w.client.readContract({
    address: w.spotToken,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [w.agent.wallet],
  });
const nonce = () => w.client.getTransactionCount({ address: w.agent.wallet });
const routerAllowance = () =>
  w.client.readContract({
    address: w.spotToken,
    abi: erc20Abi,
    functionName: "allowance",
    args: [w.agent.wallet, w.record.contracts.uniswapV2Router],
  });
const mined = async (r: { status: number; body: Record<string, any> }) => {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const receipt = await w.client.waitForTransactionReceipt({ hash: r.body.data.txHash });
  expect(receipt.status).toBe("success");
};

describe("the sell pledge at the signer", () => {
  it("refuses a sale over the daily share without signing it, and puts it on the anomaly panel", async () => {
    const policy = await call("PUT", `/v2/agents/${w.agent.agentId}/policy`, {
      venues: { "bsc-dex-v2": { assets: [w.spotToken] } },
      sides: "both",
      maxLeverage: 1,
      maxPositionUsd: "5000",
      maxOpenPositions: 3,
      dailyOpenBudgetUsd: "5000",
      approveAllowlist: [w.record.contracts.uniswapV2Router],
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    await mined(
      await call("POST", `/v2/agents/${w.agent.agentId}/orders`, {
        venue: "bsc-dex-v2",
        side: "buy",
        token: w.spotToken,
        amount: parseEther("2").toString(),
      }),
    );

    // Anyone reads the pledge; only the agent's key or the operator saves one.
    const none = await call("GET", pledgePath(), undefined, "");
    expect(none.body.data).toMatchObject({ inForce: null, pending: null, history: [] });
    const bad = await call("PUT", pledgePath(), { lockDays: 0, maxDailySellPercent: 10 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("validation_failed");
    expect(
      (await call("PUT", pledgePath(), { lockDays: 0, maxDailySellPercent: "10" }, "")).status,
    ).toBe(401);
    expect((await call("GET", pledgePath(), undefined, "")).body.data.history).toEqual([]);

    const saved = await call("PUT", pledgePath(), { lockDays: 0, maxDailySellPercent: "10" });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.data.inForce).toMatchObject({
      lockDays: 0,
      maxDailySellPercent: "10",
      loosenDelayDays: 7,
      createdBy: { kind: "agent", id: w.agent.agentId },
    });
    expect(saved.body.data.inForce.effectiveAt).toBe(saved.body.data.inForce.createdAt);

    const held = await balance();
    const allowance = (held * 1000n) / 10_000n;
    const [n, before] = [await nonce(), held];
    const over = await sell(allowance + 1n);
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({ error: "policy_denied", code: "sell_pledge_daily_exceeded" });
    expect(over.body.details[0].path).toBe("sellPledge");
    expect(over.body.message).toContain(`${allowance} of ${held} units today`);
    // The sale needed the router's approval: both were judged first, so the refused sale left
    // nothing signed, not even that approval (the wallet's nonce and allowance unmoved).
    expect(await nonce()).toBe(n);
    expect(await routerAllowance()).toBe(0n);
    expect(await balance()).toBe(before);

    const panel = await call(
      "GET",
      `/v2/admin/anomalies?agentId=${w.agent.agentId}`,
      undefined,
      `Bearer ${ADMIN}`,
    );
    expect(panel.status).toBe(200);
    expect(panel.body.data.items).toHaveLength(1);
    expect(panel.body.data.items[0]).toMatchObject({
      rule: "sellPledge",
      severity: "high",
      eventKind: "policy.denied",
      expected: `at most ${allowance} units sold today (10% of ${held})`,
      actual: `${allowance + 1n} units (0 sold + ${allowance + 1n} asked)`,
    });
    const feed = await call(
      "GET",
      `/v2/agents/${w.agent.agentId}/events?eventType=policy.denied`,
      undefined,
      "",
    );
    expect(feed.body.data.items[0].data).toMatchObject({
      evaluator: "sellPledge",
      code: "sell_pledge_daily_exceeded",
    });

    // Within the share it is signed; what is left of today's share shrinks by exactly that.
    const first = allowance / 2n;
    await mined(await sell(first));
    expect((await call("GET", pledgePath(), undefined, "")).body.data.soldTodayUnits).toBe(
      first.toString(),
    );
    const holding = (await balance()) + first;
    const rest = (holding * 1000n) / 10_000n - first;
    expect((await sell(rest + 1n)).body.code).toBe("sell_pledge_daily_exceeded");
    await mined(await sell(rest));
  });

  it("holds a loosening for the pledge's delay while a tightening binds at once", async () => {
    const start = new Date(Date.now() + w.clock.offsetMs);
    const loose = await call("PUT", pledgePath(), {
      lockDays: 0,
      maxDailySellPercent: "50",
      loosenDelayDays: 7,
    });
    expect(loose.status).toBe(200);
    expect(loose.body.data.inForce.maxDailySellPercent).toBe("10");
    expect(loose.body.data.pending.maxDailySellPercent).toBe("50");
    const due = Date.parse(loose.body.data.pending.effectiveAt);
    expect(due - Date.parse(loose.body.data.pending.createdAt)).toBe(7 * DAY);
    expect(due).toBeGreaterThanOrEqual(start.getTime() + 7 * DAY);

    // A day later (a new UTC day, nothing sold yet), still the 10 % in force.
    w.clock.offsetMs += DAY;
    const held = await balance();
    expect((await sell((held * 1000n) / 10_000n + 1n)).body.code).toBe(
      "sell_pledge_daily_exceeded",
    );

    // Past the delay, the looser share binds.
    w.clock.offsetMs = due - Date.now() + 1000;
    const view = await call("GET", pledgePath(), undefined, "");
    expect(view.body.data.inForce.maxDailySellPercent).toBe("50");
    expect(view.body.data.pending).toBeNull();
    await mined(await sell((held * 1000n) / 10_000n + 1n));

    // A lock-up (tighter) binds at once: no sale until launch + 30 days.
    const lock = await call(
      "PUT",
      pledgePath(),
      { lockDays: 30, maxDailySellPercent: "50" },
      `Bearer ${ADMIN}`,
    );
    expect(lock.status).toBe(200);
    expect(lock.body.data.inForce).toMatchObject({ lockDays: 30, createdBy: { kind: "operator" } });
    expect(lock.body.data.lockedUntil).not.toBeNull();
    const locked = await sell(1000n);
    expect(locked.body.code).toBe("sell_pledge_locked");
    expect(locked.body.message).toContain(lock.body.data.lockedUntil);
    const panel = await call(
      "GET",
      `/v2/admin/anomalies?agentId=${w.agent.agentId}`,
      undefined,
      `Bearer ${ADMIN}`,
    );
    expect(panel.body.data.items.map((a: { rule: string }) => a.rule)).toEqual([
      "sellPledge",
      "sellPledge",
      "sellPledge",
      "sellPledge",
    ]);
    expect((await call("GET", pledgePath(), undefined, "")).body.data.history).toHaveLength(3);
  });
});
