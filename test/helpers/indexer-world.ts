import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { createPublicClient, http, type PublicClient } from "viem";
import { type StartAnvilReturnType, startAnvil } from "../../devnet/anvil.ts";
import { deployDevnet } from "../../devnet/deploy.ts";
import type { DeploymentRecord } from "../../devnet/record.ts";
import { freePort } from "../../lib/local/net.ts";
import {
  type StartEmbeddedPostgresReturnType,
  startEmbeddedPostgres,
} from "../../lib/local/postgres/embedded.ts";
import { type PonderRun, startPonder } from "./ponder.ts";

/** One devnet (automine anvil, contracts deployed) and one embedded Postgres for Ponder runs. */
export type IndexerWorld = {
  dataDir: string;
  anvil: StartAnvilReturnType;
  port: number;
  pg: StartEmbeddedPostgresReturnType;
  sql: postgres.Sql;
  client: PublicClient;
  record: DeploymentRecord;
  /** The chain's head block. */
  head: () => Promise<number>;
  /** Starts `ponder start` into `schema`, reaching the chain on `rpcPort` (default: anvil's). */
  ponder: (schema: string, rpcPort?: number) => Promise<PonderRun>;
  /** Kills every Ponder run, then Postgres and anvil, and removes the data directory. */
  stop: () => Promise<void>;
};

/**
 * Boots the world the indexer tests share: anvil, the deployed contracts, embedded Postgres.
 *
 * @example
 * const w = await startIndexerWorld("indexer-test-");
 * const run = await w.ponder("idx_main"); await run.waitFor(await w.head());
 */
export async function startIndexerWorld(prefix: string): Promise<IndexerWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const port = await freePort();
  const anvil = await startAnvil({ port, blockTime: 0 });
  const client = createPublicClient({ transport: http(anvil.rpcUrl) });
  const record = await deployDevnet({ rpcUrl: anvil.rpcUrl, dataDir });
  const pg = await startEmbeddedPostgres({ dataDir });
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  const runs: PonderRun[] = [];
  return {
    dataDir,
    anvil,
    port,
    pg,
    sql,
    client,
    record,
    head: async () => Number(await client.getBlockNumber({ cacheTime: 0 })),
    ponder: async (schema, rpcPort = port) => {
      const run = await startPonder({ databaseUrl: pg.url, dataDir, devnetPort: rpcPort, schema });
      runs.push(run);
      return run;
    },
    stop: async () => {
      for (const r of runs) await r.kill("SIGKILL").catch(() => {});
      await sql.end({ timeout: 1 });
      await pg.stop();
      await anvil.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
