/**
 * `npm run bench:policy`: how fast the signer decides.
 *
 * 1. Evaluation: the whole evaluator chain over a snapshot (10 open positions, 200 realized
 *    closes in the loss window), on a mix of intents (opens that pass, opens refused at each
 *    evaluator, closes, approvals); BENCH_EVALS calls, each timed; p50/p99/max and calls/s,
 *    beside the same loop over a chain that returns at once (the loop's own ceiling).
 * 2. Signing calls: BENCH_CALLS sign-message calls over HTTP to the steward stand-in, spread
 *    over BENCH_WALLETS wallets (calls of one wallet run one at a time, by design), each one a
 *    full decision: policy version read, chain run, event stored in the outbox, signature;
 *    calls/s and p50/p99, beside GET /health on the same server (the HTTP ceiling).
 *
 * Environment: BENCH_EVALS (200,000), BENCH_CALLS (2,000), BENCH_WALLETS (8).
 */
import { performance } from "node:perf_hooks";
import { evaluate } from "../lib/policy/evaluators.ts";
import type { Intent, PolicyState } from "../lib/policy/intent.ts";
import { PolicyRules, usdToUnits } from "../lib/policy/model.ts";
import { createStewardClient } from "../services/steward/client.ts";
import { startLocalSteward } from "../test/helpers/steward.ts";
import { envNumber } from "./bench-database.ts";

const pct = (xs: number[], p: number) =>
  xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] as number;
const fmt = (ms: number) => `${(ms * 1000).toFixed(2)} µs`;

function evaluation() {
  const rules = PolicyRules.parse({
    venues: { hyperliquid: { assets: ["*"], deny: ["DOGE"] }, "bsc-dex-v2": { assets: ["*"] } },
    sides: "both",
    maxLeverage: 5,
    maxPositionUsd: "5000",
    maxOpenPositions: 10,
    dailyOpenBudgetUsd: "10000",
    lossCooldownUsd: "1000000",
    approveAllowlist: [`0x${"aa".repeat(20)}`],
    allowedUtcHours: Array.from({ length: 24 }, (_, i) => i),
  });
  const now = new Date();
  const state: PolicyState = {
    now,
    positions: Array.from({ length: 9 }, (_, i) => ({
      venue: "hyperliquid",
      asset: `C${i}`,
      side: "long" as const,
      notionalUsd: usdToUnits("100"),
    })),
    openedTodayUsd: usdToUnits("2500"),
    realized: Array.from({ length: 200 }, (_, i) => ({
      at: new Date(now.getTime() - i * 60_000),
      usd: usdToUnits(i % 2 ? "-3.5" : "2.25"),
    })),
  };
  const trade = (o: Partial<Extract<Intent, { kind: "trade" }>>): Intent => ({
    kind: "trade",
    venue: "hyperliquid",
    asset: "BTC",
    side: "long",
    action: "open",
    notionalUsd: usdToUnits("250"),
    leverage: 3,
    summary: {},
    ...o,
  });
  const intents: Intent[] = [
    trade({}),
    trade({ leverage: 9 }),
    trade({ asset: "DOGE" }),
    trade({ notionalUsd: usdToUnits("6000") }),
    trade({ venue: "unknown" }),
    trade({ action: "close" }),
    { kind: "approve", to: `0x${"aa".repeat(20)}`, amount: "1", summary: {} },
    trade({ asset: "C1", notionalUsd: usdToUnits("10") }),
  ];
  const n = envNumber("BENCH_EVALS", 200_000);
  const run = (fn: (i: Intent) => unknown) => {
    const times: number[] = new Array(n);
    const t0 = performance.now();
    for (let k = 0; k < n; k++) {
      const s = performance.now();
      fn(intents[k % intents.length] as Intent);
      times[k] = performance.now() - s;
    }
    const total = performance.now() - t0;
    times.sort((a, b) => a - b);
    return { total, times };
  };
  run((i) => evaluate(i, rules, state)); // warm up
  const chain = run((i) => evaluate(i, rules, state));
  const empty = run((i) => i.kind);
  console.log(
    `evaluation (${n} calls, ${intents.length} intents, 9 positions, 200 closes in the window)`,
  );
  console.log(
    `  chain:   p50 ${fmt(pct(chain.times, 0.5))}  p99 ${fmt(pct(chain.times, 0.99))}  max ${fmt(chain.times.at(-1) as number)}  ${Math.round(n / (chain.total / 1000)).toLocaleString()} calls/s`,
  );
  console.log(
    `  ceiling: p50 ${fmt(pct(empty.times, 0.5))}  p99 ${fmt(pct(empty.times, 0.99))}  ${Math.round(n / (empty.total / 1000)).toLocaleString()} calls/s (a chain that returns at once)`,
  );
}

async function signing() {
  const s = await startLocalSteward();
  try {
    const client = createStewardClient({
      url: s.url,
      apiKey: s.apiKey,
      tenantId: s.tenantId,
      timeoutMs: 10_000,
    });
    const wallets = await Promise.all(
      Array.from({ length: envNumber("BENCH_WALLETS", 8) }, (_, i) =>
        client.provisionWallet({ agentId: `bench-${i}` }),
      ),
    );
    const calls = envNumber("BENCH_CALLS", 2_000);
    const measure = async (one: (w: (typeof wallets)[number], k: number) => Promise<unknown>) => {
      const times: number[] = [];
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        wallets.map(async (w) => {
          while (next < calls) {
            const k = next++;
            const t = performance.now();
            await one(w, k);
            times.push(performance.now() - t);
          }
        }),
      );
      const total = performance.now() - t0;
      times.sort((a, b) => a - b);
      return `p50 ${pct(times, 0.5).toFixed(2)} ms  p99 ${pct(times, 0.99).toFixed(2)} ms  ${Math.round(calls / (total / 1000)).toLocaleString()} calls/s`;
    };
    const signed = await measure((w, k) => client.signMessage(w.walletId, `bench ${k}`));
    const health = await measure(() => fetch(`${s.url}/health`).then((r) => r.text()));
    console.log(`signing calls over HTTP (${calls} calls, ${wallets.length} wallets in parallel)`);
    console.log(`  sign-message (decision + stored event + signature): ${signed}`);
    console.log(`  ceiling, GET /health on the same server:             ${health}`);
  } finally {
    await s.stop();
  }
}

evaluation();
await signing();
