import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createPublicClient, type Hex, http } from "viem";
import type { Config } from "../lib/config.ts";
import { pipeLines } from "../lib/lines.ts";
import { residentBytes } from "../lib/local/process-memory.ts";
import { startTicker } from "../lib/ticker.ts";
import { DEVNET_LIMITS } from "./limits.ts";
import {
  adoptExitDumpInChild,
  type DumpSizes,
  dumpStateInChild,
  exitDumpPath,
} from "./state-file.ts";

/** Standard test mnemonic; anvil derives accounts 0..9 from it. */
export const DEVNET_MNEMONIC = "test test test test test test test test test test test junk";
export const DEVNET_CHAIN_ID = 56;

export type StartAnvilParameters = {
  port: number;
  host?: string;
  chainId?: number;
  /** Seconds between blocks; 0 = automine (a block per transaction). */
  blockTime: number;
  /** File the chain state is loaded from and dumped to; omit for a throwaway chain. */
  statePath?: string;
  /** Each line anvil prints, for the caller to log. */
  onLine?: (line: string) => void;
  /** States kept for reads at past blocks (DEVNET_LIMITS.historyStates by default). */
  historyStates?: number;
  /** How often the state file is written while anvil runs (DEVNET_LIMITS by default). */
  stateDumpIntervalMs?: number;
  /** Restart anvil from the state file past this much it would shed (DEVNET_LIMITS by default). */
  restartAboveShedBytes?: number;
  /** Restart anvil from the state file past this much memory growth (DEVNET_LIMITS by default). */
  restartAboveRssGrowthBytes?: number;
  /** Called with anvil's pid each time it (re)starts. */
  onSpawn?: (pid: number) => void;
};

export type StartAnvilReturnType = {
  rpcUrl: string;
  /** True when no state existed: the chain starts at genesis. */
  fresh: boolean;
  /** The running anvil (another one after a restart). */
  readonly child: ChildProcess;
  /** Graceful stop: anvil writes its state file on SIGTERM. */
  stop: () => Promise<void>;
};

/**
 * Test mode only: a lower dump-size threshold for the devnet's own restarts of anvil
 * (`LAUNCHPAD_TEST_ANVIL_SHED_BYTES`), so a test sees one after a few thousand blocks.
 */
export function testAnvilShedBytes(config: Pick<Config, "LAUNCHPAD_ENV">): number | undefined {
  const v = process.env.LAUNCHPAD_TEST_ANVIL_SHED_BYTES;
  return config.LAUNCHPAD_ENV === "test" && v ? Number(v) : undefined;
}

/**
 * Test mode only: past states kept for reads at old blocks (LAUNCHPAD_TEST_ANVIL_HISTORY). A test
 * that recomputes a figure at the block it was taken at needs that block's state after a wait
 * that, on a loaded machine, outlasted the default 64 blocks of a 1 s chain.
 */
export function testAnvilHistory(config: Pick<Config, "LAUNCHPAD_ENV">): number | undefined {
  const v = process.env.LAUNCHPAD_TEST_ANVIL_HISTORY;
  return config.LAUNCHPAD_ENV === "test" && v ? Number(v) : undefined;
}

/** Path of the platform's anvil binary shipped by `@foundry-rs/anvil`. */
export function anvilBinary(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}/package.json`;
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve(pkg)), "bin", "anvil");
}

/**
 * Starts anvil and resolves once it answers JSON-RPC.
 *
 * @example
 * const anvil = await startAnvil({ port: 8545, blockTime: 1, statePath: ".launchpad/devnet/state.json" });
 * await anvil.stop();
 */
export async function startAnvil(p: StartAnvilParameters): Promise<StartAnvilReturnType> {
  const host = p.host ?? "127.0.0.1";
  const rpcUrl = `http://${host}:${p.port}`;
  // The dump anvil wrote when it last stopped (if whole) becomes the state file.
  if (p.statePath) await adoptExitDumpInChild(p.statePath);
  const fresh = !p.statePath || !existsSync(p.statePath);
  let child = await spawnAnvil(p, host, rpcUrl, !fresh);
  let miner = p.blockTime > 0 ? startMiner(rpcUrl, p.blockTime * 1000, p.onLine) : undefined;
  let restarting: Promise<void> | undefined;

  // Anvil keeps every block and every call trace for the life of the process, and each dump
  // carries them; past `restartAboveShedBytes` of them, or `restartAboveRssGrowthBytes` of
  // memory gained since it started, it restarts from the state file.
  let baselineRss: number | undefined;
  const restart = async (why: string) => {
    const statePath = p.statePath as string;
    await miner?.stop();
    // Pending transactions into a block, so that the dump anvil writes on its stop holds them.
    if (p.blockTime > 0) await rpcCall(rpcUrl, "evm_mine", 10_000).catch(() => {});
    // The head's time before the stop: a client that mines (anvil_mine) in the moment between
    // the new anvil's RPC coming up and its clock being set gets wall-clock blocks, and the head
    // read then would be one of those, not the chain's real time.
    const before = await headTimestamp(rpcUrl).catch(() => 0);
    const started = Date.now();
    await killAnvil(child);
    await adoptExitDumpInChild(statePath);
    child = await spawnAnvil(p, host, rpcUrl, true, before);
    baselineRss = undefined;
    miner = p.blockTime > 0 ? startMiner(rpcUrl, p.blockTime * 1000, p.onLine) : undefined;
    p.onLine?.(
      `restarted anvil from the state file (same chain, RPC down ${((Date.now() - started) / 1000).toFixed(1)} s): ${why}`,
    );
  };
  const shedAbove = p.restartAboveShedBytes ?? DEVNET_LIMITS.restartAboveShedBytes;
  // A test that keeps more past states (LAUNCHPAD_TEST_ANVIL_HISTORY) holds a full state copy
  // per block beyond the default (~0.75 MB each, docs/devnet-state.md): expected memory, not
  // growth to shed. Counted as growth it restarts anvil within a couple of minutes of 1 s
  // blocks, and a restart from the state file drops the very past states the test kept.
  const history = p.historyStates ?? DEVNET_LIMITS.historyStates;
  const rssAbove =
    p.restartAboveRssGrowthBytes ??
    DEVNET_LIMITS.restartAboveRssGrowthBytes * Math.max(1, history / DEVNET_LIMITS.historyStates);
  // Why anvil must restart now, or undefined: judged after each periodic dump.
  const restartReason = (shedBytes: number): string | undefined => {
    if (shedBytes > shedAbove)
      return `to shed ${Math.round(shedBytes / 1e6)} MB of old blocks and call traces`;
    const rss = child.pid ? residentBytes(child.pid) : undefined;
    if (rss === undefined) return undefined;
    // The first reading after a (re)start, the state loaded, is what later growth counts from.
    baselineRss ??= rss;
    if (rss - baselineRss > rssAbove)
      return `its memory grew by ${Math.round((rss - baselineRss) / 1e6)} MB to ${Math.round(rss / 1e6)} MB`;
    return undefined;
  };
  const dumps = p.statePath
    ? startStateDumps({
        rpcUrl,
        path: p.statePath,
        intervalMs: p.stateDumpIntervalMs,
        log: p.onLine,
        paused: () => restarting !== undefined,
        dumped: ({ bytes, rawBytes }) => {
          const why = restarting ? undefined : restartReason(rawBytes - bytes);
          if (!why) return;
          restarting = restart(why)
            .catch((error: unknown) => p.onLine?.(`anvil restart failed: ${String(error)}`))
            .finally(() => {
              restarting = undefined;
            });
        },
      })
    : undefined;
  const stop = async () => {
    await restarting;
    await miner?.stop();
    await dumps?.stop();
    await killAnvil(child);
    // Anvil wrote its own dump on SIGTERM: make it the (trimmed) state file now.
    if (p.statePath) await adoptExitDumpInChild(p.statePath);
  };
  return {
    rpcUrl,
    fresh,
    get child() {
      return child;
    },
    stop,
  };
}

/** Spawns anvil and resolves once it answers JSON-RPC. */
async function spawnAnvil(
  p: StartAnvilParameters,
  host: string,
  rpcUrl: string,
  load: boolean,
  /** A time (s) the loaded chain's next blocks must come after, besides its head's. */
  notBefore = 0,
): Promise<ChildProcess> {
  const args = [
    "--host",
    host,
    "--port",
    String(p.port),
    "--chain-id",
    String(p.chainId ?? DEVNET_CHAIN_ID),
    "--mnemonic",
    DEVNET_MNEMONIC,
    "--accounts",
    "10",
    "--balance",
    "10000",
    // Anvil logs every RPC call and block; the service logs what matters itself.
    "--silent",
  ];
  // Not `--block-time`: anvil's interval mining raises its in-memory state limit to 1,500 blocks
  // whatever `--prune-history` says (measured: 1.16 GB after 4,000 blocks, against 0.11 GB), so
  // with 1-second blocks it held a full state copy per block for 25 minutes. Mining is off and
  // the devnet mines each block itself (`evm_mine`), which keeps the limit.
  if (p.blockTime > 0) args.push("--no-mining");
  if (p.statePath) {
    // Only the current state is kept: in memory the last `historyStates` blocks' states (each a
    // full copy), on disk our own periodic dump (state-file.ts) and anvil's dump on a signal,
    // which the next start adopts. docs/devnet-state.md says what a hard kill loses.
    if (load) args.push("--load-state", p.statePath);
    args.push("--dump-state", exitDumpPath(p.statePath));
    args.push("--prune-history", String(p.historyStates ?? DEVNET_LIMITS.historyStates));
  }
  // Its own process group: a terminal's Ctrl-C goes to the supervisor, which stops anvil in
  // order (after the indexer) so the state file is written last.
  const child = spawn(anvilBinary(), args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  // Named at once, not once it answers: a supervisor killed in between leaves it to the next
  // start to stop.
  if (child.pid) p.onSpawn?.(child.pid);
  const tail: string[] = [];
  const onLine = (line: string) => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
    p.onLine?.(line);
  };
  pipeLines(child.stdout, onLine);
  pipeLines(child.stderr, onLine);
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) =>
      reject(new Error(`anvil exited (code ${code}) before it was ready:\n${tail.join("\n")}`)),
    ),
  );
  await Promise.race([waitForRpc(rpcUrl), exited]);
  if (load) await keepTimestampsIncreasing(rpcUrl, notBefore);
  return child;
}

/**
 * Anvil loaded from a state file takes the wall clock for its next block and forgets any time
 * offset (`evm_increaseTime`, which tests and the storyline use to pass deadlines). A chain whose
 * head is ahead of the clock would then mine a block older than its parent, which BSC never
 * does and the indexer relies on (candles: docs/indexer.md). So the clock is moved to just past
 * the head.
 */
async function keepTimestampsIncreasing(rpcUrl: string, notBefore: number): Promise<void> {
  const head = Math.max(await headTimestamp(rpcUrl), notBefore);
  const ahead = head - Math.floor(Date.now() / 1000);
  if (ahead >= 0) await rpcCall(rpcUrl, "evm_increaseTime", 10_000, [ahead + 1]);
}

/** The newest block's timestamp (s), 0 for a chain without one. */
async function headTimestamp(rpcUrl: string): Promise<number> {
  const head = (await rpcCall(rpcUrl, "eth_getBlockByNumber", 10_000, ["latest", false])) as {
    timestamp: Hex;
  } | null;
  return head ? Number(head.timestamp) : 0;
}

/** SIGTERM (anvil dumps its state), SIGKILL after 10 s. */
async function killAnvil(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await done;
  clearTimeout(timer);
}

/**
 * Writes the state file every `intervalMs` (one dump at a time). A failed dump (anvil busy or
 * paused) is logged and the next one tries again; the previous file stays whole.
 */
function startStateDumps(p: {
  rpcUrl: string;
  path: string;
  intervalMs?: number;
  log?: (line: string) => void;
  /** True while anvil restarts: no dump then. */
  paused: () => boolean;
  dumped: (sizes: DumpSizes) => void;
}) {
  return startTicker({
    everyMs: p.intervalMs ?? DEVNET_LIMITS.stateDumpIntervalMs,
    tick: async () => {
      if (p.paused()) return;
      p.dumped(await dumpStateInChild(p.rpcUrl, p.path));
    },
    onError: (error) => p.log?.(`state dump failed (the next one retries): ${String(error)}`),
  });
}

/**
 * Mines a block every `intervalMs` with `evm_mine` (one at a time: a tick while anvil is busy or
 * paused is skipped, as anvil's own interval mining would be late).
 */
function startMiner(rpcUrl: string, intervalMs: number, log?: (line: string) => void) {
  let failing = false;
  return startTicker({
    everyMs: intervalMs,
    tick: async () => {
      await rpcCall(rpcUrl, "evm_mine", intervalMs * DEVNET_LIMITS.mineTimeoutIntervals);
      failing = false;
    },
    onError: (error) => {
      // Once per outage, not once a second.
      if (!failing) log?.(`mining a block failed (the next tick retries): ${String(error)}`);
      failing = true;
    },
  });
}

async function rpcCall(
  rpcUrl: string,
  method: string,
  timeoutMs: number,
  params: unknown[] = [],
): Promise<unknown> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message?: string } };
  if (body.error) throw new Error(`${method} failed: ${body.error.message ?? res.status}`);
  return body.result;
}

async function waitForRpc(rpcUrl: string, timeoutMs = 30_000): Promise<void> {
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: 1_000 }) });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client.getChainId();
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`anvil at ${rpcUrl} did not answer`, { cause: error });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
