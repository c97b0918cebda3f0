import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, createTestClient, http, type PublicClient } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type StartAnvilReturnType, startAnvil } from "../../devnet/anvil.ts";
import { deployDevnet } from "../../devnet/deploy.ts";
import type { DeploymentRecord } from "../../devnet/record.ts";
import { CHAIN_SOURCE, readChainEvents } from "../../jobs/events/chain-rows.ts";
import { projectChainEvents } from "../../jobs/events/projector.ts";
import { startChainProjector } from "../../jobs/events/run-projector.ts";
import { createSql, type Sql } from "../../lib/db/client.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { readCheckpoints } from "../../lib/indexer/status.ts";
import { freePort } from "../../lib/local/net.ts";
import {
  type StartEmbeddedPostgresReturnType,
  startEmbeddedPostgres,
} from "../../lib/local/postgres/embedded.ts";
import { createLogger } from "../../lib/logger.ts";
import { waitFor } from "../helpers/cli.ts";
import { type PonderRun, startPonder } from "../helpers/ponder.ts";
import { type RunScenarioReturnType, runScenario } from "../helpers/scenario.ts";
import { tradeBurst } from "../helpers/scenario-burst.ts";

// Chain events in the feed: a real devnet (automine anvil, the real contracts), a real
// `ponder start` index, and the projector as the worker runs it. A reorg (anvil snapshot,
// trades, revert, other trades) must leave the feed equal to the feed a fresh index gives.

let dataDir: string;
let anvil: StartAnvilReturnType;
let port: number;
let pg: StartEmbeddedPostgresReturnType;
let sql: Sql;
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
  dataDir = mkdtempSync(join(tmpdir(), "events-chain-"));
  port = await freePort();
  anvil = await startAnvil({ port, blockTime: 0 });
  client = createPublicClient({ transport: http(anvil.rpcUrl) });
  record = await deployDevnet({ rpcUrl: anvil.rpcUrl, dataDir });
  pg = await startEmbeddedPostgres({ dataDir });
  sql = createSql(pg.url, { max: 4 });
  await migrate(sql);
  scenario = await runScenario({ rpcUrl: anvil.rpcUrl, record, seed: 11, trades: 40 });
  // One agent per service token, as the launch saga records them.
  for (const [i, token] of scenario.tokens.entries()) {
    await sql`insert into app.agents (agent_id, name, token_address)
      values (${`chain-${i}`}, ${`Chain ${i}`}, ${token.toLowerCase()})`;
  }
}, 180_000);

afterAll(async () => {
  for (const r of runs) await r.kill("SIGKILL").catch(() => {});
  await sql?.end({ timeout: 1 });
  await pg?.stop();
  await anvil?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

type FeedRow = { sid: string; type: string; agent: string; block: string; data: unknown };
const feed = async () =>
  (
    await sql<FeedRow[]>`select source_event_id as sid, event_type as type, agent_id as agent,
      block_number::text as block, data from app.agent_events where source = ${CHAIN_SOURCE}
      order by source_event_id`
  ).map((r) => ({ ...r, data: sorted(r.data) }));

/** The feed a fresh index gives: every agent projected from block 0 out of `schema`. */
async function freshFeed(schema: string): Promise<FeedRow[]> {
  const agents = (await sql`select agent_id, token_address from app.agents`).map((a) => ({
    agentId: a.agent_id as string,
    token: a.token_address as string,
    fromBlock: -1n,
  }));
  const head = (await readCheckpoints(sql, schema))?.chains[0]?.block ?? 0n;
  const rows = await readChainEvents(sql, schema, record.chainId, agents, head);
  return rows
    .map((e) => ({
      sid: e.sourceEventId,
      type: e.eventType,
      agent: e.agentId,
      block: String(e.blockNumber),
      data: sorted(e.data),
    }))
    .sort((a, b) => (a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : 0));
}

it("projects trades, creation, graduation, identity and treasury activity; a reorg leaves the feed equal to a fresh index's", async () => {
  const test = createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) });
  const main = await ponder("idx_main");
  await main.waitFor(await head());
  const first = await projectChainEvents(sql, { schema: "idx_main" });
  expect(first.inserted).toBeGreaterThan(40);
  const types = new Set((await feed()).map((r) => r.type));
  for (const t of [
    "trade.buy",
    "trade.sell",
    "launch.created",
    "launch.graduated",
    "identity.registered",
    "tax.income",
  ]) {
    expect(types, t).toContain(t);
  }
  // Every indexed trade of an agent's token is in the feed, once, with a stable id.
  const [trades] = await sql`select count(*)::int as n from idx_main.trade t
    join app.agents a on a.token_address = t.token`;
  const tradeRows = (await feed()).filter((r) => r.type.startsWith("trade."));
  expect(tradeRows).toHaveLength(trades?.n);
  expect(
    tradeRows.every((r) => new RegExp(`^${record.chainId}:0x[0-9a-f]{64}:\\d+$`).test(r.sid)),
  ).toBe(true);
  // A second pass over an unchanged index changes nothing, and writes no agent's row: the
  // projector's one position moves (a row per agent per block was its cost at 1,000 agents).
  const rowsAt = async () =>
    (await sql`select agent_id, updated_at from app.chain_projection order by agent_id`).map(
      (r) => `${r.agent_id}@${(r.updated_at as Date).toISOString()}`,
    );
  const agentRows = await rowsAt();
  expect(agentRows.length).toBeGreaterThan(0);
  await test.mine({ blocks: 1 });
  await main.waitFor(await head());
  const second = await projectChainEvents(sql, { schema: "idx_main" });
  expect(second).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
  expect(await rowsAt()).toEqual(agentRows);
  const [position] = await sql`select projected_to::text as at from app.projection_position
    where source = 'evm-indexer:bsc'`;
  expect(position?.at).toBe(String(second.head));

  const snapshot = await test.snapshot();
  const burst = { rpcUrl: anvil.rpcUrl, record, curveTokens: scenario.tokens.slice(1) };
  await tradeBurst({ ...burst, seed: 8, dexToken: scenario.graduatedToken, count: 8 });
  await main.waitFor(await head());
  const beforeReorg = await projectChainEvents(sql, { schema: "idx_main" });
  expect(beforeReorg.inserted).toBeGreaterThan(0);
  const orphaned = new Set((await feed()).map((r) => r.sid));

  await test.revert({ id: snapshot });
  await tradeBurst({ ...burst, seed: 9, dexToken: scenario.graduatedToken, count: 10 });
  await test.mine({ blocks: 3 });
  await main.waitFor(await head());
  const afterReorg = await projectChainEvents(sql, { schema: "idx_main" });
  expect(afterReorg.deleted).toBeGreaterThan(0);
  const fresh = await ponder("idx_fresh");
  await fresh.waitFor(await head());
  const now = await feed();
  expect(now).toEqual(await freshFeed("idx_fresh"));
  // Rows of the abandoned branch are gone; the new branch's trades are there.
  expect(now.filter((r) => !orphaned.has(r.sid)).length).toBeGreaterThan(0);
}, 400_000);

// The worker's projector is woken by Ponder's own NOTIFY when a commit changed a table: with its
// backstop timer an hour away, new trades reach the feed, and empty blocks (a NOTIFY of `[]`)
// start no pass.
it("the worker's projector runs on Ponder's commits that change a table, not on empty blocks", async () => {
  const main = runs[0] ?? (await ponder("idx_main"));
  await main.waitFor(await head());
  // The feed is up to date before the projector starts: its first pass finds nothing new.
  await projectChainEvents(sql, { schema: "idx_main" });
  const projector = await startChainProjector({
    sql,
    schema: "idx_main",
    log: createLogger("projector", "silent"),
    everyMs: 3_600_000,
  });
  try {
    const settled = async () => {
      await main.waitFor(await head());
      // A notification is delivered after the commit the index's checkpoint shows.
      await new Promise((r) => setTimeout(r, 1_000));
      return projector.passes();
    };
    const before = await settled();
    const test = createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) });
    await test.mine({ blocks: 3 });
    expect(await settled()).toBe(before);

    const known = new Set((await feed()).map((r) => r.sid));
    const burst = { rpcUrl: anvil.rpcUrl, record, curveTokens: scenario.tokens.slice(1) };
    await tradeBurst({ ...burst, seed: 10, dexToken: scenario.graduatedToken, count: 4 });
    await main.waitFor(await head());
    // Every indexed trade of an agent's token, not just the first of the burst: the burst's
    // trades may sit in several blocks, each its own commit and pass.
    const added = await waitFor(
      "the new trades in the feed",
      async () => {
        const [indexed] = await sql`select count(*)::int as n from idx_main.trade t
          join app.agents a on a.token_address = t.token`;
        const rows = await feed();
        const trades = rows.filter((r) => r.type.startsWith("trade.")).length;
        const fresh = rows.filter((r) => !known.has(r.sid)).length;
        return trades === indexed?.n && fresh > 0 ? fresh : undefined;
      },
      60_000,
    );
    expect(added).toBeGreaterThan(0);
    expect(projector.passes()).toBeGreaterThan(before);
    // The passes left nothing for a pass by hand to add.
    expect(await projectChainEvents(sql, { schema: "idx_main" })).toMatchObject({ inserted: 0 });
  } finally {
    await projector.stop();
  }
}, 300_000);

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}
