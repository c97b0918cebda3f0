import { createTestClient, http, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PolicyWorld, startPolicyWorld } from "./harness.ts";

// An order the agent's wallet cannot pay for: the signer's answer (Steward's 502 "Insufficient
// funds for transaction", docs/upstreams.md) is the API's 409 `conflict`, nothing sent, through
// the real API, signer stand-in and anvil.

let w: PolicyWorld;
beforeAll(async () => {
  w = await startPolicyWorld();
}, 240_000);
afterAll(async () => {
  await w?.stop();
});

async function call(method: string, path: string, body: unknown) {
  const res = await fetch(`${w.apiUrl}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${w.agent.apiKey}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("an order the wallet cannot pay for", () => {
  it("is 409 conflict (fund the wallet), nothing sent", async () => {
    const saved = await call("PUT", `/v2/agents/${w.agent.token}/policy`, {
      venues: { "bsc-dex-v2": { assets: [w.spotToken] } },
      sides: "both",
      maxLeverage: 3,
      maxPositionUsd: "1000",
      maxOpenPositions: 3,
      dailyOpenBudgetUsd: "700",
    });
    expect(saved.status).toBe(200);
    const rpc = (w.client.transport as { url?: string }).url as string;
    const test = createTestClient({ mode: "anvil", transport: http(rpc) });
    await test.setBalance({ address: w.agent.wallet, value: parseEther("0.01") });
    const nonce = await w.client.getTransactionCount({ address: w.agent.wallet });
    // 0.1 BNB (about 60 USD) fits the policy, not the wallet.
    const r = await call("POST", `/v2/agents/${w.agent.token}/orders`, {
      venue: "bsc-dex-v2",
      side: "buy",
      token: w.spotToken,
      amount: parseEther("0.1").toString(),
      minAmountOut: "0",
    });
    expect(r.status, JSON.stringify(r.body)).toBe(409);
    expect(r.body).toMatchObject({ ok: false, error: "conflict" });
    expect(String(r.body.message)).toContain("cannot pay");
    expect(await w.client.getTransactionCount({ address: w.agent.wallet })).toBe(nonce);
  });
});
