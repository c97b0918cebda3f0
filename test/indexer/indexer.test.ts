import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { createPublicClient, createTestClient, http, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartAnvilReturnType, startAnvil } from "../../devnet/anvil.ts";
import { deployDevnet } from "../../devnet/deploy.ts";
import type { DeploymentRecord } from "../../devnet/record.ts";
import { type RunScenarioReturnType, runScenario } from "../../lib/indexer/scenario.ts";
import { tradeBurst } from "../../lib/indexer/scenario-burst.ts";
import { checkIndex, dumpTables } from "../../lib/indexer/scenario-check.ts";
import { freePort } from "../../lib/net.ts";
import {
  type StartEmbeddedPostgresReturnType,
  startEmbeddedPostgres,
} from "../../lib/postgres/embedded.ts";
import { type PonderRun, startPonder } from "./ponder.ts";

// One devnet (automine anvil) and one embedded Postgres for every case: a deterministic scenario,
// then real `ponder start` processes indexing it into separate schemas.

let dataDir: string;
let anvil: StartAnvilReturnType;
let port: number;
let pg: StartEmbeddedPostgresReturnType;
let sql: postgres.Sql;
let client: PublicClient;
let record: DeploymentRecord;
let scenario: RunScenarioReturnType;
const runs: PonderRun[] = [];

const head = async () => Number(await client.getBlockNumber({ cacheTime: 0 }));
async function ponder(schema: string): Promise<PonderRun> {
  const run = await startPonder({ databaseUrl: pg.url, dataDir, devnetPort: port, schema });
  runs.push(run);
  return run;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "indexer-test-"));
  port = await freePort();
  anvil = await startAnvil({ port, blockTime: 0 });
  client = createPublicClient({ transport: http(anvil.rpcUrl) });
  record = await deployDevnet({ rpcUrl: anvil.rpcUrl, dataDir });
  pg = await startEmbeddedPostgres({ dataDir });
  sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  scenario = await runScenario({ rpcUrl: anvil.rpcUrl, record, seed: 7, trades: 300 });
}, 120_000);

afterAll(async () => {
  for (const r of runs) await r.kill("SIGKILL").catch(() => {});
  await sql?.end({ timeout: 1 });
  await pg?.stop();
  await anvil?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("indexer", () => {
  let main: PonderRun;

  it("indexes the scenario exactly: every table equals a recomputation from logs and reads", async () => {
    main = await ponder("idx_main");
    await main.waitFor(await head());
    const mismatches = await checkIndex({
      sql,
      schema: "idx_main",
      client,
      record,
      absent: [scenario.unregistered],
    });
    expect(mismatches).toEqual([]);
    const [n] = await sql`select count(*)::int as n from idx_main.trade`;
    expect(n?.n).toBeGreaterThan(150);
  }, 120_000);

  it("restart: killed mid-way and started again, the index equals the uninterrupted one", async () => {
    const run = await ponder("idx_restart");
    // Kill as soon as it has committed something, before it caught up.
    const target = await head();
    for (let i = 0; i < 400; i++) {
      const b = await run.indexedBlock();
      if (b >= 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const killedAt = await run.indexedBlock();
    await run.kill("SIGKILL");
    const again = await ponder("idx_restart");
    // The schema's lock outlives a SIGKILL by up to 25 s (Ponder's heartbeat timeout).
    await again.waitFor(target, 120_000);
    expect(killedAt).toBeLessThan(target);
    expect(await dumpTables(sql, "idx_restart")).toEqual(await dumpTables(sql, "idx_main"));
    await again.kill();
  }, 150_000);

  it("reorg: snapshot, trades, revert, other trades; the index equals a fresh index", async () => {
    const test = createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) });
    const snapshot = await test.snapshot();
    const burst = { rpcUrl: anvil.rpcUrl, record, curveTokens: scenario.tokens.slice(1) };
    // Each burst stays well inside Ponder's 30-block unfinalized window.
    await tradeBurst({ ...burst, seed: 8, dexToken: scenario.graduated, count: 8 });
    await main.waitFor(await head());
    const before = await head();
    await test.revert({ id: snapshot });
    await tradeBurst({ ...burst, seed: 9, dexToken: scenario.graduated, count: 10 });
    await test.mine({ blocks: 3 });
    const after = await head();
    expect(after).toBeGreaterThan(before);
    await main.waitFor(after);
    expect(main.output()).not.toContain("unrecoverable");
    const fresh = await ponder("idx_fresh");
    await fresh.waitFor(after);
    expect(await dumpTables(sql, "idx_main")).toEqual(await dumpTables(sql, "idx_fresh"));
    expect(await checkIndex({ sql, schema: "idx_main", client, record })).toEqual([]);
  }, 180_000);
});
