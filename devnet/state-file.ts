import { execFile } from "node:child_process";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { DEVNET_LIMITS } from "./limits.ts";

const gunzipAsync = promisify(gunzip);
const execFileAsync = promisify(execFile);
const CHILD = fileURLToPath(new URL("./state-dump-child.ts", import.meta.url));

/** The parts of anvil's state dump (`SerializableState`) this file touches. */
type AnvilState = {
  best_block_number?: number | string;
  blocks?: { header: { number: string }; transactions?: unknown[] }[];
  transactions?: { info?: { traces?: unknown[] } }[];
  historical_states?: unknown;
  [key: string]: unknown;
};

/**
 * Reads the chain's current state with `anvil_dumpState` and writes it to `path` atomically
 * (a temporary file renamed over the old one, so a kill mid-write keeps the previous file).
 *
 * The file holds the accounts and storage as of the head, every block that carries
 * transactions (with its transactions and receipts), blocks 0 and 1 (block 1 names the chain),
 * and the last `recentBlocks` blocks; older empty blocks, historical states and call traces are
 * left out.
 * So it grows with what the chain holds, not with the number of blocks mined.
 *
 * @returns the bytes written.
 */
export async function dumpState(
  rpcUrl: string,
  path: string,
  timeoutMs: number = DEVNET_LIMITS.stateDumpTimeoutMs,
): Promise<number> {
  return (await dumpStateSized(rpcUrl, path, timeoutMs)).bytes;
}

/** What a dump wrote: the file's bytes, anvil's own dump's bytes, and the head it holds. */
export type DumpSizes = { bytes: number; rawBytes: number; head: number };

/**
 * `dumpState`, also telling how big anvil's own dump was (`rawBytes`, JSON): what anvil holds
 * beyond the file (old empty blocks, call traces) is `rawBytes - bytes`, and a restart from the
 * file sheds it.
 */
export async function dumpStateSized(
  rpcUrl: string,
  path: string,
  timeoutMs: number = DEVNET_LIMITS.stateDumpTimeoutMs,
): Promise<DumpSizes> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_dumpState", params: [] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as { result?: string; error?: { message?: string } };
  if (!body.result) throw new Error(`anvil_dumpState failed: ${body.error?.message ?? res.status}`);
  const json = await gunzipAsync(Buffer.from(body.result.slice(2), "hex"));
  const state = trimState(JSON.parse(json.toString("utf8")) as AnvilState);
  const text = JSON.stringify(state);
  const tmp = `${path}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
  return {
    bytes: Buffer.byteLength(text),
    rawBytes: json.length,
    head: Number(state.best_block_number ?? 0),
  };
}

/**
 * `dumpStateSized` in a short-lived child process: the periodic dumps of a devnet that runs for
 * days, so that the supervisor's memory does not grow with the dumps it parsed.
 *
 * @example
 * const { bytes, rawBytes } = await dumpStateInChild(rpcUrl, ".launchpad/devnet/state.json");
 */
export async function dumpStateInChild(
  rpcUrl: string,
  path: string,
  timeoutMs: number = DEVNET_LIMITS.stateDumpTimeoutMs,
): Promise<DumpSizes> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [CHILD, "dump", rpcUrl, path, String(timeoutMs)],
    // The child's own timeout covers the RPC; this one covers the process.
    { timeout: timeoutMs * 2, killSignal: "SIGKILL", maxBuffer: 64 * 1024 },
  );
  return JSON.parse(stdout) as DumpSizes;
}

/**
 * Leaves out of a state dump what does not grow with the chain's contents: empty blocks older
 * than `recentBlocks` behind the head (blocks 0 and 1 always stay), historical states, and the
 * transactions' call traces.
 */
export function trimState(
  state: AnvilState,
  recentBlocks: number = DEVNET_LIMITS.recentBlocks,
): AnvilState {
  const best = Number(state.best_block_number ?? 0);
  const blocks = (state.blocks ?? []).filter((b) => {
    const n = Number(b.header.number);
    return n <= 1 || n > best - recentBlocks || (b.transactions?.length ?? 0) > 0;
  });
  // Call traces are most of a transaction's bytes and only `debug_`/`trace_` calls read them;
  // receipts and logs stay.
  const transactions = (state.transactions ?? []).map((t) =>
    t.info ? { ...t, info: { ...t.info, traces: [] } } : t,
  );
  return { ...state, blocks, transactions, historical_states: null };
}

/** Where anvil itself writes the state when it stops on a signal (beside the state file). */
export function exitDumpPath(path: string): string {
  return `${path.replace(/\.json$/, "")}.exit.json`;
}

/**
 * Before anvil starts: adopts the dump anvil wrote on its last stop (`exitDumpPath`) when it
 * is whole and at least as far as the state file, trimmed like every dump; a torn one (anvil
 * killed while writing) is dropped and the last periodic dump stays.
 *
 * @returns the head block number of the state file, or undefined when there is none.
 */
export async function adoptExitDump(path: string): Promise<number | undefined> {
  const exitPath = exitDumpPath(path);
  const [current, exited] = await Promise.all([readState(path), readState(exitPath)]);
  let state = current;
  if (exited && Number(exited.best_block_number ?? 0) >= Number(current?.best_block_number ?? -1)) {
    const tmp = `${path}.tmp`;
    await writeFile(tmp, JSON.stringify(trimState(exited)));
    await rename(tmp, path);
    state = exited;
  }
  await rm(exitPath, { force: true });
  return state ? Number(state.best_block_number ?? 0) : undefined;
}

/**
 * `adoptExitDump` in a short-lived child process, so that parsing anvil's exit dump (hundreds of
 * MB after a long run) leaves nothing behind in the supervisor's memory.
 *
 * @example
 * const head = await adoptExitDumpInChild(".launchpad/devnet/state.json");
 */
export async function adoptExitDumpInChild(path: string): Promise<number | undefined> {
  const { stdout } = await execFileAsync(process.execPath, [CHILD, "adopt", path], {
    timeout: DEVNET_LIMITS.stateDumpTimeoutMs * 3,
    killSignal: "SIGKILL",
    maxBuffer: 64 * 1024,
  });
  const { head } = JSON.parse(stdout) as { head: number | null };
  return head ?? undefined;
}

async function readState(path: string): Promise<AnvilState | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as AnvilState;
  } catch {
    return undefined;
  }
}
