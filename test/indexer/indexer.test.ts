import { createTestClient, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IndexerWorld, startIndexerWorld } from "../helpers/indexer-world.ts";
import type { PonderRun } from "../helpers/ponder.ts";
import { type RunScenarioReturnType, runScenario } from "../helpers/scenario.ts";
import { tradeBurst } from "../helpers/scenario-burst.ts";
import { checkIndex, dumpTables } from "../helpers/scenario-check.ts";
import { checkMarket } from "./market-check.ts";

// One devnet (automine anvil) and one embedded Postgres for every case: a deterministic scenario,
// then real `ponder start` processes indexing it into separate schemas.

let w: IndexerWorld;
let scenario: RunScenarioReturnType;

beforeAll(async () => {
  w = await startIndexerWorld("indexer-test-");
  scenario = await runScenario({ rpcUrl: w.anvil.rpcUrl, record: w.record, seed: 7, trades: 300 });
}, 120_000);

afterAll(async () => w?.stop());

describe("indexer", () => {
  let main: PonderRun;

  it("indexes the scenario exactly: every table equals a recomputation from logs and reads", async () => {
    main = await w.ponder("idx_main");
    await main.waitFor(await w.head());
    const mismatches = await checkIndex({
      sql: w.sql,
      schema: "idx_main",
      client: w.client,
      record: w.record,
      absent: [scenario.unregistered],
    });
    expect(mismatches).toEqual([]);
    const [n] = await w.sql`select count(*)::int as n from idx_main.trade`;
    expect(
      await checkMarket({ sql: w.sql, schema: "idx_main", client: w.client, record: w.record }),
    ).toEqual([]);
    expect(n?.n).toBeGreaterThan(150);
    // The token registered after its trades: the mint, three buys and a sell before the entry.
    const [late] = await w.sql`
      select (select count(*)::int from idx_main.trade where token = ${scenario.late.toLowerCase()}) as trades,
        (select created_block is not null from idx_main.token where address = ${scenario.late.toLowerCase()}) as minted`;
    expect(late).toEqual({ trades: 4, minted: true });
  }, 120_000);

  it("restart: killed mid-way and started again, the index equals the uninterrupted one", async () => {
    const run = await w.ponder("idx_restart");
    // Kill as soon as it has committed something, before it caught up.
    const target = await w.head();
    for (let i = 0; i < 400; i++) {
      const b = await run.indexedBlock();
      if (b >= 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const killedAt = await run.indexedBlock();
    await run.kill("SIGKILL");
    const again = await w.ponder("idx_restart");
    // The schema's lock outlives a SIGKILL by up to 25 s (Ponder's heartbeat timeout).
    await again.waitFor(target, 120_000);
    expect(killedAt).toBeLessThan(target);
    expect(await dumpTables(w.sql, "idx_restart")).toEqual(await dumpTables(w.sql, "idx_main"));
    await again.kill();
  }, 150_000);

  it("reorg: snapshot, trades, revert, other trades; the index equals a fresh index", async () => {
    const test = createTestClient({ mode: "anvil", transport: http(w.anvil.rpcUrl) });
    const snapshot = await test.snapshot();
    const burst = {
      rpcUrl: w.anvil.rpcUrl,
      record: w.record,
      curveTokens: scenario.tokens.slice(1),
    };
    // Each burst stays well inside Ponder's 30-block unfinalized window.
    await tradeBurst({ ...burst, seed: 8, dexToken: scenario.graduatedToken, count: 8 });
    await main.waitFor(await w.head());
    const before = await w.head();
    await test.revert({ id: snapshot });
    await tradeBurst({ ...burst, seed: 9, dexToken: scenario.graduatedToken, count: 10 });
    await test.mine({ blocks: 3 });
    const after = await w.head();
    expect(after).toBeGreaterThan(before);
    await main.waitFor(after);
    expect(main.output()).not.toContain("unrecoverable");
    const fresh = await w.ponder("idx_fresh");
    await fresh.waitFor(after);
    expect(await dumpTables(w.sql, "idx_main")).toEqual(await dumpTables(w.sql, "idx_fresh"));
    expect(
      await checkIndex({ sql: w.sql, schema: "idx_main", client: w.client, record: w.record }),
    ).toEqual([]);
    expect(
      await checkMarket({ sql: w.sql, schema: "idx_main", client: w.client, record: w.record }),
    ).toEqual([]);
  }, 180_000);
});
