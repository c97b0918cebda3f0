import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOG_CACHE_SCHEMA } from "../../lib/indexer/deployment.ts";
import { type IndexerWorld, startIndexerWorld } from "../helpers/indexer-world.ts";
import { type RpcProxy, startRpcProxy } from "../helpers/rpc-proxy.ts";
import { type RunScenarioReturnType, runScenario } from "../helpers/scenario.ts";
import { checkIndex } from "../helpers/scenario-check.ts";

// What Ponder 0.17.7 does when a handler throws ReceiptMismatchError (src/receipts.ts), and
// that the indexer is right either way. Ponder reaches the chain through a JSON-RPC proxy in
// front of anvil that answers the handlers' eth_getLogs (by block, filtered by topics: Ponder's
// own calls filter by address or not at all) with null (a node behind or on a fork).

let w: IndexerWorld;
let proxy: RpcProxy;
let scenario: RunScenarioReturnType;
const ponder = (schema: string) => w.ponder(schema, proxy.port);
/** The handlers' read of a block's logs (src/receipts.ts), not Ponder's. */
const handlerRead = ([filter]: unknown[]) =>
  (filter as { topics?: unknown; address?: unknown }).topics !== undefined &&
  (filter as { address?: unknown }).address === undefined;
let handlerCalls = 0;
const counted = (params: unknown[]) => {
  if (!handlerRead(params)) return false;
  handlerCalls++;
  return true;
};
const exact = (schema: string) =>
  checkIndex({
    sql: w.sql,
    schema,
    client: w.client,
    record: w.record,
    absent: [scenario.unregistered],
  });

beforeAll(async () => {
  w = await startIndexerWorld("receipts-test-");
  proxy = await startRpcProxy(w.anvil.rpcUrl);
  const run = { rpcUrl: w.anvil.rpcUrl, record: w.record, seed: 3, trades: 40, dexSwaps: 4 };
  scenario = await runScenario(run);
}, 120_000);

afterAll(async () => {
  await w?.stop();
  await proxy?.stop();
});

describe("receipts from a node that disagrees", () => {
  it("a few wrong answers: the handler reads again and the index is exact", async () => {
    proxy.override("eth_getLogs", null, 3, counted);
    const before = handlerCalls;
    const run = await ponder("rcpt_flaky");
    await run.waitFor(await w.head());
    // The three null answers were used up, and read again rather than failing the indexer.
    expect(handlerCalls - before).toBeGreaterThan(3);
    expect(run.output()).not.toContain("IndexingFunctionError");
    const bad = await exact("rcpt_flaky");
    expect(bad).toEqual([]);
    await run.kill();
  }, 150_000);

  it("a node that keeps disagreeing: Ponder does not retry, it exits; restarted, it resumes and loses nothing", async () => {
    // Nothing kept from the run above (src/log-cache.ts): every block's logs come from the node.
    await w.sql.unsafe(`drop schema if exists ${LOG_CACHE_SCHEMA} cascade`);
    proxy.override("eth_getLogs", null, Number.POSITIVE_INFINITY, handlerRead);
    const run = await ponder("rcpt_fatal");
    const exited = await new Promise<number | null>((resolve) => {
      if (run.child.exitCode !== null) resolve(run.child.exitCode);
      run.child.once("exit", (code) => resolve(code));
    });
    // The finding: the thrown error is rewrapped as a non-retryable IndexingFunctionError and
    // the process ends (the indexer role exits with it and its supervisor restarts it).
    expect(exited).not.toBe(0);
    expect(run.output()).toContain("IndexingFunctionError");
    expect(run.output()).toContain("no receipts for block");

    proxy.clear();
    const again = await ponder("rcpt_fatal");
    // The schema's lock outlives the crash by up to Ponder's heartbeat timeout.
    await again.waitFor(await w.head(), 120_000);
    const bad = await exact("rcpt_fatal");
    expect(bad).toEqual([]);
    await again.kill();
  }, 240_000);
});
