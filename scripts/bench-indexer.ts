// `npm run bench:indexer [-- --trades 100000 --tokens 200 --per-block 500 --live-blocks 100]
//   [--cpu-prof DIR] [--ponder-log FILE] [--poll] [--no-reindex] [--reindex-floor 10000]`
// Generates K curve trades over N registered tokens on a throwaway devnet, then prints: the raw
// eth_getLogs rate of the node (the ceiling), its rate for whole blocks (what Ponder's sync
// fetches), backfill throughput of `ponder start` (events/s, with and without Ponder's process
// start, and Ponder's sync alone), the CPU each process spent per backfilled event, and live lag
// from a block being mined to its trades being readable through the views (p50, p99, and where
// it went: scripts/bench-indexer-live.ts). `--cpu-prof DIR` writes V8 CPU profiles of the
// indexing process into DIR, the reindex's into DIR/reindex (Chrome DevTools, speedscope);
// `--ponder-log FILE` keeps Ponder's debug log; `--poll` has Ponder poll for new blocks instead
// of subscribing to them. Last, a reindex into a new schema from Ponder's RPC cache: Ponder's
// indexing without the node; the bench exits 1 when it runs under `--reindex-floor` events/s
// (10,000: the figure an idle 2-core machine keeps, docs/indexer.md).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import {
  type Address,
  createPublicClient,
  createTestClient,
  type Hex,
  http,
  keccak256,
  parseEther,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devnetAccounts } from "../devnet/accounts.ts";
import { anvilBinary, DEVNET_MNEMONIC } from "../devnet/anvil.ts";
import { deployDevnet } from "../devnet/deploy.ts";
import { buyCall } from "../devnet/storyline/calls.ts";
import { serviceTokenCalls } from "../devnet/storyline/tokens.ts";
import type { StoryCall } from "../devnet/storyline/world.ts";
import { INDEXER_RPC_LIMITS } from "../lib/limits.ts";
import { freePort } from "../lib/local/net.ts";
import { startEmbeddedPostgres } from "../lib/local/postgres/embedded.ts";
import { startPonder } from "../test/helpers/ponder.ts";
import { PROVIDER_PROFILES } from "../test/helpers/rpc-provider.ts";
import { catchUp, liveLag, startMiner } from "./bench-indexer-live.ts";
import {
  completedEvents,
  cpuMarks,
  loggedDuration,
  rpcBytes,
  syncStoreSize,
  timeSplit,
  treeCpuSeconds,
  wholeBlocks,
} from "./bench-indexer-probes.ts";
import { providerRun } from "./bench-indexer-provider.ts";

const { values } = parseArgs({
  options: {
    trades: { type: "string", default: "100000" },
    tokens: { type: "string", default: "200" },
    "per-block": { type: "string", default: "500" },
    "live-blocks": { type: "string", default: "100" },
    "cpu-prof": { type: "string" },
    "ponder-log": { type: "string" },
    // Ponder polls for new blocks instead of subscribing (how the devnet ran before it streamed blocks).
    poll: { type: "boolean", default: false },
    // After the live phase, index everything again into a new schema (`--no-reindex` skips it).
    reindex: { type: "boolean", default: true },
    // The reindex guard: below this many events/s the bench exits non-zero (0: no guard).
    "reindex-floor": { type: "string", default: "10000" },
    // Through an RPC proxy that behaves like a hosted BSC provider (test/helpers/rpc-provider.ts):
    // the backfill and the reindex only, with the calls each made (scripts/bench-indexer-provider.ts).
    provider: { type: "string" },
    // Empty blocks mined after each block of trades: a history as sparse as mainnet's.
    gap: { type: "string", default: "0" },
  },
  allowNegative: true,
});
const TRADES = Number(values.trades);
const TOKENS = Number(values.tokens);
const PER_BLOCK = Number(values["per-block"]);
const LIVE_BLOCKS = Number(values["live-blocks"]);
const TRADERS = 100;
const REINDEX_FLOOR = Number(values["reindex-floor"]);
const GAP = Number(values.gap);
const PROFILE = values.provider === undefined ? undefined : PROVIDER_PROFILES[values.provider];
if (values.provider !== undefined && !PROFILE) {
  console.error(`--provider is one of ${Object.keys(PROVIDER_PROFILES).join(", ")}`);
  process.exit(2);
}

const dataDir = mkdtempSync(join(tmpdir(), "bench-indexer-"));
const port = await freePort();
// Own anvil: no automine (blocks are mined in batches) and a large block gas limit.
const anvil = spawn(
  anvilBinary(),
  ["--port", String(port), "--chain-id", "56", "--mnemonic", DEVNET_MNEMONIC, "--silent"].concat([
    "--no-mining",
    "--gas-limit",
    "2000000000",
    "--balance",
    "100000000",
  ]),
  { stdio: "ignore" },
);
const rpcUrl = `http://127.0.0.1:${port}`;
const client = createPublicClient({ transport: http(rpcUrl, { timeout: 120_000 }) });
const test = createTestClient({ mode: "anvil", transport: http(rpcUrl, { timeout: 120_000 }) });
for (let _i = 0; ; _i++) {
  if (await client.getChainId().catch(() => 0)) break;
  await new Promise((r) => setTimeout(r, 100));
}
const cleanup = async () => {
  anvil.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
};

try {
  await test.setAutomine(true);
  const record = await deployDevnet({ rpcUrl, dataDir });
  await test.setAutomine(false);
  const c = record.contracts;
  const roles = devnetAccounts();
  const gasPrice = (await client.getGasPrice()) * 2n;
  const nonces = new Map<Address, number>();
  type Acct = ReturnType<typeof privateKeyToAccount> | (typeof roles)["relayer"];
  // Signed up front and sent in batches: the storyline's calls, mined a block at a time.
  const raw = async (from: Acct, call: StoryCall) => {
    const nonce = nonces.get(from.address) ?? 0;
    nonces.set(from.address, nonce + 1);
    return from.signTransaction({
      ...call,
      gasPrice,
      nonce,
      chainId: record.chainId,
      type: "legacy",
    });
  };
  const sendAll = async (txs: Hex[]) => {
    for (let i = 0; i < txs.length; i += 200) {
      await Promise.all(
        txs
          .slice(i, i + 200)
          .map((tx) => client.request({ method: "eth_sendRawTransaction", params: [tx] })),
      );
    }
  };
  const mine = () => test.mine({ blocks: 1 });
  const key = (l: string) => privateKeyToAccount(keccak256(toHex(`bench:${l}`)));
  nonces.set(
    roles.relayer.address,
    await client.getTransactionCount({ address: roles.relayer.address }),
  );

  // Tokens: created in one block, registered in the next (as the launch saga does).
  const t0 = Date.now();
  const creators = Array.from({ length: TOKENS }, (_, i) => key(`creator${i}`));
  const traders = Array.from({ length: TRADERS }, (_, i) => key(`trader${i}`));
  for (const a of [...creators, ...traders]) {
    await test.setBalance({ address: a.address, value: parseEther("1000000") });
  }
  const tokens: Address[] = [];
  const registers: ((createdBlock: bigint) => StoryCall)[] = [];
  const create: Hex[] = [];
  for (let i = 0; i < TOKENS; i++) {
    const creator = creators[i] as Acct;
    const calls = await serviceTokenCalls({
      client,
      record,
      signer: roles.launchpadSigner,
      name: `Bench ${i}`,
      symbol: `B${i}`,
      requestId: BigInt(i + 1),
      creator: creator.address,
      treasury: key(`treasury${i}`).address,
      agentId: 0n,
    });
    tokens.push(calls.token);
    registers.push(calls.register);
    create.push(await raw(creator, calls.create));
  }
  await sendAll(create);
  await mine();
  const createdBlock = await client.getBlockNumber({ cacheTime: 0 });
  const reg: Hex[] = [];
  for (const register of registers) reg.push(await raw(roles.relayer, register(createdBlock)));
  await sendAll(reg);
  await mine();

  const buy = (i: number) => {
    const trader = traders[i % TRADERS] as Acct;
    const token = tokens[i % TOKENS] as Address;
    const funds = parseEther("0.001") + BigInt(i % 97) * 10n ** 14n;
    return raw(trader, buyCall(c, token, funds));
  };
  for (let done = 0; done < TRADES; done += PER_BLOCK) {
    const batch: Hex[] = [];
    for (let i = done; i < Math.min(TRADES, done + PER_BLOCK); i++) batch.push(await buy(i));
    await sendAll(batch);
    await mine();
    if (GAP > 0) await test.mine({ blocks: GAP });
  }
  // Past Ponder's 30-block finality window: everything above is backfill.
  await test.mine({ blocks: 31 });
  const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
  console.log(
    `generated ${TRADES} trades over ${TOKENS} tokens in ${head} blocks (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
  );

  // Bytes the indexer reads per trade block (docs/indexer.md, mainnet cost): a full block of
  // curve buys, its receipts at once, one receipt, and the block with its transactions.
  {
    const full = toHex(head - 31);
    const block = await rpcBytes(rpcUrl, "eth_getBlockByNumber", [full, true]);
    const receipts = await rpcBytes(rpcUrl, "eth_getBlockReceipts", [full]);
    const txs = (block.result as { transactions: { hash: Hex }[] }).transactions;
    const one = await rpcBytes(rpcUrl, "eth_getTransactionReceipt", [txs[0]?.hash]);
    const hash = (block.result as { hash: Hex }).hash;
    const logs = await rpcBytes(rpcUrl, "eth_getLogs", [{ blockHash: hash }]);
    console.log(
      `bytes of a block of ${txs.length} curve buys: eth_getBlockByNumber(full) ${block.bytes} (${block.ms.toFixed(0)} ms), eth_getBlockReceipts ${receipts.bytes} (${Math.round(receipts.bytes / txs.length)} per tx, ${receipts.ms.toFixed(0)} ms), eth_getLogs(blockHash) ${logs.bytes} (${logs.ms.toFixed(0)} ms), eth_getTransactionReceipt ${one.bytes}`,
    );
  }

  // Ceiling: raw eth_getLogs over the same range, in chunks that keep each answer under viem's
  // 10 MB response limit (a full block here holds ~5 logs per trade, ~1 KB each).
  const chunk = Math.max(1, Math.floor(1000 / PER_BLOCK));
  const g0 = performance.now();
  const gCpu = treeCpuSeconds(anvil.pid);
  let logCount = 0;
  for (let from = record.deployedAtBlock; from <= head; from += chunk) {
    const logs = await client.request({
      method: "eth_getLogs",
      params: [{ fromBlock: toHex(from), toBlock: toHex(Math.min(head, from + chunk - 1)) }],
    });
    logCount += (logs as unknown[]).length;
  }
  const getLogsSec = (performance.now() - g0) / 1000;
  const perLogUs = ((treeCpuSeconds(anvil.pid) - gCpu) * 1e6) / logCount;
  console.log(
    `eth_getLogs ceiling: ${logCount} logs in ${getLogsSec.toFixed(2)} s = ${Math.round(logCount / getLogsSec)} logs/s (anvil CPU ${perLogUs.toFixed(1)} µs a log)`,
  );
  // What Ponder 0.17's sync asks of the node besides logs: every block holding a matched log,
  // whole (eth_getBlockByNumber(n, true)), as many at a time as the indexer's transport allows.
  const whole = await wholeBlocks(client, record.deployedAtBlock, head, () =>
    treeCpuSeconds(anvil.pid),
  );
  console.log(
    `whole blocks (${INDEXER_RPC_LIMITS.concurrency} at a time), what Ponder's sync fetches for every block with a matched log: ${whole.transactions} transactions in ${whole.seconds.toFixed(2)} s = ${Math.round(whole.transactions / whole.seconds)} transactions/s (anvil CPU ${whole.cpuUsPerTx.toFixed(1)} µs a transaction)`,
  );

  const pg = await startEmbeddedPostgres({ dataDir });
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  try {
    if (PROFILE) {
      const ok = await providerRun({
        profile: PROFILE,
        sql,
        databaseUrl: pg.url,
        dataDir,
        devnetPort: port,
        rpcUrl,
        head,
        fromBlock: record.deployedAtBlock ?? 0,
        trades: TRADES,
      });
      if (!ok) process.exitCode = 1;
    } else {
      const p0 = performance.now();
      const profDir = values["cpu-prof"];
      const run = await startPonder({
        databaseUrl: pg.url,
        dataDir,
        devnetPort: port,
        schema: "bench",
        viewsSchema: "bench_views",
        // debug: the live phase splits each block's lag with Ponder's per-block lines.
        logLevel: "debug",
        nodeArgs: profDir ? ["--cpu-prof", "--cpu-prof-dir", profDir] : [],
        ws: !values.poll,
      });
      // An empty block a second, as the devnet mines: with a subscription, Ponder reads the blocks
      // after its backfill at the first new head (scripts/bench-indexer-live.ts).
      const stopMiner = startMiner(test);
      // CPU of each process over Ponder's backfill clock (its first fetch to its last batch).
      const pgPid = Number(readFileSync(join(dataDir, "run", "postgres.pid"), "utf8"));
      const marks = cpuMarks(run.output, {
        ponder: run.child.pid,
        anvil: anvil.pid,
        postgres: pgPid,
      });
      await run.waitFor(head, 3_600_000).finally(marks.stop);
      const backfillSec = (performance.now() - p0) / 1000;
      const [counts] = await sql`select (select count(*) from bench.trade)::int as trades`;
      const events = await completedEvents(run.port);
      // Ponder's own clock from its first historical batch to the end of the backfill: no vite
      // build, schema setup or index creation.
      const ponderMs = loggedDuration(run.output(), "Completed backfill indexing");
      // Ponder's sync alone: its eth_getLogs, one whole block per block with a matched log, and
      // the ponder_sync writes of every matched transaction; indexing overlaps it.
      const syncMs = loggedDuration(run.output(), "Finished fetching backfill JSON-RPC data");
      console.log(
        `backfill: ${counts?.trades} trades, ${events} events in ${backfillSec.toFixed(1)} s (process start included) = ${Math.round(events / backfillSec)} events/s`,
      );
      console.log(`where the backfill went (Ponder's /metrics):\n${await timeSplit(run.port)}`);
      console.log(
        `backfill without process start (Ponder's backfill clock): ${events} events in ${(ponderMs / 1000).toFixed(1)} s = ${Math.round(events / (ponderMs / 1000))} events/s = ${((100 * events) / (ponderMs / 1000) / (logCount / getLogsSec)).toFixed(1)}% of the eth_getLogs ceiling (${Math.round(logCount / getLogsSec)} logs/s)`,
      );
      console.log(
        `of which Ponder's sync (eth_getLogs, whole blocks, ponder_sync writes): ${(syncMs / 1000).toFixed(1)} s, a bound of ${Math.round(events / (syncMs / 1000))} events/s = ${((100 * events) / (syncMs / 1000) / (logCount / getLogsSec)).toFixed(1)}% of the ceiling`,
      );
      const perEvent = marks.perEvent(events);
      if (perEvent) {
        const cores = availableParallelism();
        const total = perEvent.ponder + perEvent.anvil + perEvent.postgres;
        console.log(
          `CPU a backfilled event: ponder ${perEvent.ponder.toFixed(0)} µs, anvil ${perEvent.anvil.toFixed(0)} µs, postgres ${perEvent.postgres.toFixed(0)} µs = ${total.toFixed(0)} µs; on ${cores} cores at best ${Math.round((cores * 1e6) / total)} events/s = ${((100 * cores * 1e6) / total / (logCount / getLogsSec)).toFixed(1)}% of the ceiling`,
        );
      }

      const store = await syncStoreSize(sql);
      console.log(
        `ponder_sync keeps ${store.transactions} transactions, ${store.logs} logs, ${store.blocks} blocks: ${(store.bytes / 1e6).toFixed(1)} MB = ${Math.round(store.bytes / events)} bytes a backfilled event`,
      );

      // Live: blocks of trades mined one at a time (scripts/bench-indexer-live.ts), once Ponder
      // has read the unfinalized blocks after its backfill.
      await catchUp({ client, run, head, stopMiner });
      console.log(
        `live: new heads ${values.poll ? "polled every 100 ms" : "pushed over WebSocket (eth_subscribe)"}`,
      );
      const perLiveBlock = 20;
      await liveLag({
        client,
        test,
        sql,
        run,
        viewsSchema: "bench_views",
        blocks: LIVE_BLOCKS,
        perBlock: perLiveBlock,
        batch: (b) =>
          Promise.all(
            Array.from({ length: perLiveBlock }, (_, i) => buy(TRADES + b * perLiveBlock + i)),
          ),
        sendAll,
      });
      await run.kill();
      if (values["ponder-log"]) writeFileSync(values["ponder-log"], run.output());

      // A reindex, as an operator runs one (a new schema, then the view switch): the same chain
      // again, its sync answered by Ponder's RPC cache in ponder_sync but for the live blocks.
      // What it costs is Ponder's indexing with no node behind it: the bound of any change on
      // the node's side (a cheaper fetch, a faster node) to the backfill above.
      if (values.reindex) {
        const last = Number(await client.getBlockNumber({ cacheTime: 0 }));
        // Blocks keep coming, as on a chain: Ponder reads its unfinalized tail at a new head.
        const stopReMiner = startMiner(test);
        const again = await startPonder({
          databaseUrl: pg.url,
          dataDir,
          devnetPort: port,
          schema: "bench_reindex",
          viewsSchema: "bench_reindex_views",
          logLevel: "debug",
          nodeArgs: profDir ? ["--cpu-prof", "--cpu-prof-dir", join(profDir, "reindex")] : [],
          ws: !values.poll,
        });
        const reMarks = cpuMarks(again.output, {
          ponder: again.child.pid,
          anvil: anvil.pid,
          postgres: pgPid,
        });
        await again.waitFor(last, 3_600_000).finally(() => {
          reMarks.stop();
          stopReMiner();
        });
        const reEvents = await completedEvents(again.port);
        const reMs = loggedDuration(again.output(), "Completed backfill indexing");
        const reSyncMs = loggedDuration(again.output(), "Finished fetching backfill JSON-RPC data");
        const ceiling = logCount / getLogsSec;
        console.log(
          `reindex from Ponder's cache: ${reEvents} events in ${(reMs / 1000).toFixed(1)} s (Ponder's backfill clock; its sync ${(reSyncMs / 1000).toFixed(1)} s) = ${Math.round(reEvents / (reMs / 1000))} events/s = ${((100 * reEvents) / (reMs / 1000) / ceiling).toFixed(1)}% of the eth_getLogs ceiling`,
        );
        const reRate = reEvents / (reMs / 1000);
        if (REINDEX_FLOOR > 0 && !(reRate >= REINDEX_FLOOR)) {
          // A regression of Ponder's indexing or of our handlers: a bench failure, not a test's.
          console.error(
            `FAIL: the reindex from Ponder's cache ran at ${Math.round(reRate)} events/s, under the floor of ${REINDEX_FLOOR} (--reindex-floor; on an idle 2-core machine; load now ${loadavg()[0]?.toFixed(1)})`,
          );
          process.exitCode = 1;
        }
        const re = reMarks.perEvent(reEvents);
        if (re) {
          console.log(
            `CPU a reindexed event: ponder ${re.ponder.toFixed(0)} µs, anvil ${re.anvil.toFixed(0)} µs, postgres ${re.postgres.toFixed(0)} µs`,
          );
        }
        await again.kill();
      }
    }
  } finally {
    await sql.end({ timeout: 1 });
    await pg.stop();
  }
} finally {
  await cleanup();
}
