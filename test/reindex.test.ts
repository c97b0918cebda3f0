import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { embeddedPostgresUrl } from "../lib/local/postgres/embedded.ts";
import { isolatedEnv, runCli, type Stack, startStack, waitFor } from "./helpers/cli.ts";

// `launchpad reindex` on a running service: reads through the views never fail and never see
// an empty or half-built index while the new deployment backfills; then the views switch.

let stack: Stack | undefined;
afterAll(async () => stack?.cleanup());

describe("launchpad reindex", () => {
  it("builds a new schema beside the live one and switches the views without interrupting reads", async () => {
    const env = await isolatedEnv();
    stack = await startStack(env);
    const sql = postgres(embeddedPostgresUrl(env.LAUNCHPAD_DATA_DIR) ?? "", { max: 2 });
    const viewSource = async () => {
      const [row] = await sql`select view_definition as def from information_schema.views
        where table_schema = 'onchain' and table_name = 'token'`;
      return /FROM (indexer_\d+)\./.exec(String(row?.def))?.[1];
    };
    expect(await waitFor("the views", viewSource)).toBe("indexer_1");
    const rows = async () =>
      (await sql`select count(*)::int as n from onchain.token`)[0]?.n as number;
    const before = await rows();

    let reads = 0;
    const failures: string[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        try {
          const n = await rows();
          if (n !== before) failures.push(`read ${n} rows, expected ${before}`);
          reads++;
        } catch (error) {
          failures.push(String(error));
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    const result = await runCli(["reindex"], env, 180_000);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/reindexing into indexer_2 \(live: indexer_1\)/);
    expect(result.stdout).toMatch(/the views now read indexer_2/);
    expect(await viewSource()).toBe("indexer_2");

    // The running indexer role follows the new deployment and drops the old schema.
    await waitFor("the old schema to be dropped", async () => {
      const old =
        await sql`select 1 from information_schema.schemata where schema_name = 'indexer_1'`;
      return old.length === 0 ? true : undefined;
    });
    const status = await runCli(["indexer", "status", "--json"], env);
    expect(JSON.parse(status.stdout)).toMatchObject({ schema: "indexer_2" });
    await new Promise((r) => setTimeout(r, 2_000));
    reading = false;
    await reader;
    expect(failures).toEqual([]);
    expect(reads).toBeGreaterThan(20);
    await sql.end();
    expect(await stack.stop()).toBe(0);
  }, 300_000);
});
