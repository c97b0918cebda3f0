import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { type Address, createPublicClient, createWalletClient, http, parseEventLogs } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { serviceRegistryAbi } from "../abis/ServiceRegistry.ts";
import { tokenManager2Abi } from "../abis/TokenManager2.ts";
import { devnetAccounts } from "../devnet/accounts.ts";
import { DEVNET_MNEMONIC } from "../devnet/anvil.ts";
import { type DeploymentRecord, readDeploymentRecord } from "../devnet/record.ts";
import { signCreateArgs } from "../lib/create-args.ts";
import { processRuns } from "../lib/local/pidfile.ts";
import { embeddedPostgresUrl } from "../lib/local/postgres/embedded.ts";
import { pairAddress } from "../lib/pair.ts";
import { isolatedEnv, runCli, type Stack, startStack, waitFor } from "./helpers/cli.ts";

// These tests boot the whole service as a user would (`launchpad start`), in a temp data dir
// with free ports, and stop it the way a terminal does (SIGINT to the process group). Seven
// boots, four to eight minutes in all (sequencer: first).

const running: Stack[] = [];
afterAll(async () => {
  for (const s of running) await s.cleanup();
});

async function boot(env: { [k: string]: string }): Promise<Stack> {
  const stack = await startStack(env);
  running.push(stack);
  return stack;
}

/** Creates a token, then registers it in the ServiceRegistry (as the launch saga does). */
async function createServiceToken(
  rpc: string,
  record: DeploymentRecord | undefined,
): Promise<void> {
  if (!record) throw new Error("no deployment record");
  const c = record.contracts;
  const client = createPublicClient({ transport: http(rpc) });
  const { launchpadSigner, relayer, external } = devnetAccounts(DEVNET_MNEMONIC);
  const creator = external[0];
  if (!creator) throw new Error("no external account");
  const args = {
    name: "Old Chain Token",
    symbol: "OLD",
    requestId: 1n,
    creator: creator.address,
    recipient: creator.address,
  };
  const signed = await signCreateArgs({
    ...args,
    signer: launchpadSigner,
    chainId: 56,
    tokenManager: c.tokenManager2,
  });
  const wallet = createWalletClient({ account: creator, transport: http(rpc) });
  const hash = await wallet.writeContract({
    chain: null,
    abi: tokenManager2Abi,
    address: c.tokenManager2,
    functionName: "createToken",
    args: [signed.args, signed.signature],
    value: BigInt(record.params.launchFee),
  });
  const created = await client.waitForTransactionReceipt({ hash });
  expect(created.status).toBe("success");
  const [ev] = parseEventLogs({
    abi: tokenManager2Abi,
    logs: created.logs,
    eventName: "TokenCreate",
  });
  if (!ev) throw new Error("createToken emitted no TokenCreate");
  const token = ev.args.token;
  const pair = pairAddress({
    factory: c.uniswapV2Factory,
    token,
    wbnb: c.wbnb,
    initCodeHash: record.pairInitCodeHash,
  });
  const registrar = createWalletClient({ account: relayer, transport: http(rpc) });
  const registered = await registrar.writeContract({
    chain: null,
    abi: serviceRegistryAbi,
    address: c.serviceRegistry,
    functionName: "registerToken",
    args: [token, pair, creator.address, creator.address, 0n, created.blockNumber],
  });
  expect((await client.waitForTransactionReceipt({ hash: registered })).status).toBe("success");
}

function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

function readRecord(dataDir: string): DeploymentRecord {
  const record = readDeploymentRecord(dataDir);
  if (!record) throw new Error(`no deployment record in ${dataDir}`);
  return record;
}

function embeddedUrl(dataDir: string): string {
  const url = embeddedPostgresUrl(dataDir);
  if (!url) throw new Error(`no embedded Postgres in ${dataDir}`);
  return url;
}

describe("launchpad start", () => {
  it("serves /health, shows every URL, and Ctrl-C leaves no process behind", async () => {
    const env = await isolatedEnv();
    const stack = await boot(env);

    const res = await fetch(`${stack.apiUrl}/health`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      ok: true,
      data: { service: "launchpad", env: "development", uptimeSeconds: expect.any(Number) },
    });

    const out = stack.output();
    expect(out).toContain(`API        http://127.0.0.1:${env.PORT}`);
    expect(out).toContain(`WebSocket  ws://127.0.0.1:${env.PORT}/ws`);
    expect(out).toContain(`RPC        http://127.0.0.1:${env.DEVNET_PORT} (devnet, chain id 56)`);
    expect(out).toMatch(/Database {3}postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/\*\*\* \(embedded\)/);
    expect(out).toContain(`Data dir   ${env.LAUNCHPAD_DATA_DIR}`);
    // Each child's lines carry its role.
    for (const role of ["[api]", "[worker]", "[indexer]", "[postgres]", "[web]"])
      expect(out).toContain(role);

    // Every contract of the devnet's record has code on the chain the service started.
    const info = await runCli(["devnet", "info", "--json"], env);
    expect(info.code).toBe(0);
    const record = JSON.parse(info.stdout) as {
      chainId: number;
      contracts: { [name: string]: Address };
    };
    expect(record.chainId).toBe(56);
    const client = createPublicClient({ transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`) });
    expect(Object.keys(record.contracts).length).toBeGreaterThanOrEqual(13);
    for (const [name, address] of Object.entries(record.contracts)) {
      expect((await client.getCode({ address }))?.length, name).toBeGreaterThan(2);
    }

    const tree = stack.tree();
    // supervisor, postgres (+ its backends), anvil, api, worker, indexer, ponder
    expect(tree.length).toBeGreaterThanOrEqual(7);
    expect(await stack.stop("SIGINT")).toBe(0);
    await waitFor(
      "every child to exit",
      async () => (tree.some(processRuns) ? undefined : true),
      20_000,
    );
    expect(readdirSync(join(env.LAUNCHPAD_DATA_DIR, "run"))).toEqual([]);
  }, 180_000);

  it("keeps the devnet and the database across a restart, and recovers from a hard kill", async () => {
    const env = await isolatedEnv();
    const first = await boot(env);
    const record = readRecord(env.LAUNCHPAD_DATA_DIR);
    const client = createPublicClient({ transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`) });
    await waitFor("a few blocks", async () =>
      (await client.getBlockNumber()) >= 3n ? true : undefined,
    );
    const blockBefore = await client.getBlockNumber();
    const identity = (await client.getBlock({ blockNumber: 1n })).hash;
    expect(await client.getCode({ address: record.contracts.tokenManager2 })).toMatch(
      /^0x[0-9a-f]{100,}/,
    );
    expect(await first.stop("SIGINT")).toBe(0);

    // Graceful restart: same chain (genesis), same contracts, no block lost.
    const second = await boot(env);
    expect(readRecord(env.LAUNCHPAD_DATA_DIR)).toEqual(record);
    expect((await client.getBlock({ blockNumber: 1n })).hash).toBe(identity);
    expect(await client.getBlockNumber()).toBeGreaterThanOrEqual(blockBefore);
    expect(await client.getCode({ address: record.contracts.tokenManager2 })).toMatch(
      /^0x[0-9a-f]{100,}/,
    );

    // The first Ponder's stop released its schema lock: the second one takes it at once
    // instead of waiting up to 25 s for the lock's heartbeat to expire.
    const migrated = await waitFor(
      "the second Ponder to take its schema",
      async () =>
        second
          .output()
          .match(/Detected crash recovery|Schema is locked by a different Ponder app/)?.[0],
    );
    expect(migrated).toBe("Detected crash recovery");

    // Hard kill of the whole supervisor: roles go with it, postgres and anvil are orphaned;
    // the next start clears them and carries on with the same data.
    const sql = postgres(embeddedUrl(env.LAUNCHPAD_DATA_DIR), { max: 1 });
    const [meta] = await sql`select value from app.meta where key = 'chain.genesis'`;
    await sql.end();
    expect(meta?.value).toBe(identity);
    // The devnet wrote its state after deploying; the orphaned anvil dumps again when the next
    // start stops it (SIGINT), and that dump is adopted.
    process.kill(second.child.pid as number, "SIGKILL");
    await new Promise((r) => second.child.once("exit", r));

    const third = await boot(env);
    expect((await client.getBlock({ blockNumber: 1n })).hash).toBe(identity);
    expect(await client.getCode({ address: record.contracts.tokenManager2 })).toMatch(
      /^0x[0-9a-f]{100,}/,
    );
    const sql2 = postgres(embeddedUrl(env.LAUNCHPAD_DATA_DIR), { max: 1 });
    const [meta2] = await sql2`select value from app.meta where key = 'chain.genesis'`;
    await sql2.end();
    expect(meta2?.value).toBe(identity);
    expect(third.output()).not.toMatch(/the chain was reset/);
    const tree = third.tree();
    expect(await third.stop("SIGINT")).toBe(0);
    await waitFor(
      "every child to exit",
      async () => (tree.some(processRuns) ? undefined : true),
      20_000,
    );
  }, 300_000);

  it("never indexes a new chain on top of the old one's data", async () => {
    const env = await isolatedEnv();
    const first = await boot(env);
    const record = readRecord(env.LAUNCHPAD_DATA_DIR);
    const rpc = `http://127.0.0.1:${env.DEVNET_PORT}`;
    const _client = createPublicClient({ transport: http(rpc) });
    await createServiceToken(rpc, record);
    const url = embeddedUrl(env.LAUNCHPAD_DATA_DIR);
    const sql = postgres(url, { max: 1 });
    const tokens = async () => (await sql`select symbol from onchain.token`).map((r) => r.symbol);
    expect(
      await waitFor("the token to be indexed", async () =>
        (await tokens()).length ? tokens() : undefined,
      ),
    ).toEqual(["OLD"]);
    await sql.end();
    // Live blocks are indexed quietly at the default level: the console is for what matters.
    expect(first.output()).toMatch(/"msg":"Started live indexing"/);
    expect(first.output()).not.toMatch(/"msg":"Indexed block"/);
    expect(await first.stop("SIGINT")).toBe(0);

    // The chain's state is deleted: the next start makes a new chain (new genesis, same id 56).
    rmSync(join(env.LAUNCHPAD_DATA_DIR, "devnet", "state.json"));
    const second = await boot(env);
    expect(readRecord(env.LAUNCHPAD_DATA_DIR).contracts).toBeDefined();
    expect(second.output()).toMatch(/the chain was reset/);
    const sql2 = postgres(url, { max: 1 });
    const ready = async () => {
      const rows = await sql2`select count(*)::int as n from onchain.token`;
      return rows[0]?.n as number;
    };
    expect(await waitFor("the new index to be published", ready)).toBe(0);
    await sql2.end();
    expect(await second.stop("SIGINT")).toBe(0);
  }, 300_000);

  it("brings back a role that keeps dying, the API included", async () => {
    const env = await isolatedEnv();
    const stack = await boot(env);
    const rolePid = (role: string, not?: number) =>
      waitFor(`the ${role} process`, async () => {
        for (const pid of stack.tree()) {
          // Postgres backends come and go while we look.
          const cmd = cmdline(pid);
          if (pid !== not && cmd.includes(role) && cmd.some((a) => a.endsWith("launchpad.js")))
            return pid;
        }
        return undefined;
      });

    // The web app dies five times within a minute: three restarts at once, then a back-off; the
    // running stack never gives up on it.
    let webPid = await rolePid("web");
    for (let i = 0; i < 5; i++) {
      process.kill(webPid, "SIGKILL");
      webPid = await rolePid("web", webPid);
    }
    expect(stack.output()).toMatch(/web exited \(SIGKILL\); restarting\n/);
    expect(stack.output()).toMatch(
      /web exited \(SIGKILL\), 4 times within a minute; restarting in 1 s/,
    );
    expect(stack.output()).toMatch(
      /web exited \(SIGKILL\), 5 times within a minute; restarting in 2 s/,
    );
    const web = `http://127.0.0.1:${env.WEB_PORT}/health`;
    expect(
      await waitFor("the web app to answer again", async () =>
        (await fetch(web).catch(() => undefined))?.ok ? true : undefined,
      ),
    ).toBe(true);
    expect(stack.child.exitCode).toBeNull();

    // The API comes back like the others: a database fault that kills it must not end the service.
    const apiPid = await rolePid("api");
    process.kill(apiPid, "SIGKILL");
    await rolePid("api", apiPid);
    expect(
      await waitFor("the API to answer again", async () =>
        (await fetch(`${stack.apiUrl}/health`).catch(() => undefined))?.ok ? true : undefined,
      ),
    ).toBe(true);
    expect(stack.output()).toMatch(/api exited \(SIGKILL\); restarting\n/);
    expect(stack.child.exitCode).toBeNull();
    expect(await stack.stop("SIGINT")).toBe(0);
  }, 180_000);
});
