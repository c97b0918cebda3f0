import { afterAll, describe } from "vitest";
import { stopSharedStack } from "./helpers/shared-stack.ts";

// what: Runs the suites that share one stack (agent-preview, events, launch, first-buy, deposit, portfolio, pollers, platform, web) and stops that stack
// Whole-stack suites that only read or add their own agents, tokens and wallets, on one shared
// `launchpad start` (test/helpers/shared-stack.ts: booted by the first suite's beforeAll, stopped
// here) instead of a stack each. Each suite keeps its own file and its own hooks; they run one
// after another, never side by side on the stack. Suites that kill, restart or corrupt a stack,
// or need another environment, keep their own (docs/testing.md says which and why).
// sequencer: first (the suites together run for minutes)
//
// The agent-launch preview goes first: it proves a preview changes nothing (every saga, the
// relayer's nonce and balance) and so wants no other suite's background work still running.

describe("the agent launch's preview (test/sessions/agent-preview.suite.ts)", async () => {
  await import("./sessions/agent-preview.suite.ts");
});
describe("the agent's event feed (test/events/stack.suite.ts)", async () => {
  await import("./events/stack.suite.ts");
});
describe("agents, keys and launches (test/launch/launch.suite.ts)", async () => {
  await import("./launch/launch.suite.ts");
});
describe("first buys and launch reports (test/launch/first-buy.suite.ts)", async () => {
  await import("./launch/first-buy.suite.ts");
});
describe("wallet sessions and deposit launches (test/sessions/deposit.suite.ts)", async () => {
  await import("./sessions/deposit.suite.ts");
});
describe("a depositor's public portfolio (test/sessions/portfolio.suite.ts)", async () => {
  await import("./sessions/portfolio.suite.ts");
});
describe("the pollers after `devnet seed` (test/pollers/stack.suite.ts)", async () => {
  await import("./pollers/stack.suite.ts");
});
describe("platform stats, the trade ticker and the runway list (test/market/platform.suite.ts)", async () => {
  await import("./market/platform.suite.ts");
});
describe("the web app in a browser (test/web/web.suite.ts)", async () => {
  await import("./web/web.suite.ts");
});

afterAll(stopSharedStack, 60_000);
