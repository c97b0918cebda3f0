import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join, relative } from "node:path";
import { processRuns } from "../../lib/local/pidfile.ts";
import { ledgerTimes } from "../../scripts/test-ledger.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const STACK = /startStack\(|runChaos\(|sharedStack\(|runLoad\(/;
const LONGEST = /sequencer: first/;
/** A file that ran this long in the ledger's last run is heavy, whatever it starts. */
const HEAVY_SECONDS = 15;

/**
 * Heavy files at once (test/setup-heavy.ts); vitest runs one more worker for the light ones.
 * Three, on two cores: with two the machine sits idle while a run's stacks wait on blocks,
 * leases and Ponder's 20 requests a second; three fill it (docs/benchmarks.md, "Test suite").
 */
export const HEAVY_SLOTS = 3;

let times: Map<string, number> | undefined;

/**
 * What a test file costs, from the ledger's last run (docs/testing.md) or, for a file it has
 * no time for, a guess from what the file starts; `heavy`: a whole stack, or a long run of real
 * processes (Ponder, the roles), as against a file of plain functions and short servers.
 */
export function testFileCost(file: string): { seconds: number; heavy: boolean } {
  times ??= ledgerTimes(readFileSync(join(ROOT, "docs", "testing.md"), "utf8"));
  const text = readFileSync(file, "utf8");
  const known = times.get(relative(ROOT, file));
  const stack = STACK.test(text);
  const seconds = known ?? (LONGEST.test(text) ? 300 : stack ? 60 : 1);
  return { seconds, heavy: stack || seconds >= HEAVY_SECONDS };
}

/**
 * At most `slots` heavy test files at once across vitest's workers: a slot is a file created
 * exclusively in `dir` that names its holder's pid, so a worker that died holding one frees it
 * by dying. Light files never wait: they run on the CPU the heavy ones leave idle while they
 * wait on blocks, leases and polls.
 *
 * @example
 * const release = await takeHeavySlot(dir, 2);
 * try { await bootAStack(); } finally { release(); }
 */
export async function takeHeavySlot(dir: string, slots: number): Promise<() => void> {
  mkdirSync(dir, { recursive: true });
  for (;;) {
    for (let i = 0; i < slots; i++) {
      const path = join(dir, `slot-${i}`);
      try {
        const fd = openSync(path, "wx");
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return () => rmSync(path, { force: true });
      } catch {
        // Held: by a live worker, or by one that died holding it (then freed here). An empty
        // file is one being written this moment.
        try {
          const holder = Number(readFileSync(path, "utf8").trim() || "0");
          if (holder > 0 && !processRuns(holder)) rmSync(path, { force: true });
        } catch {} // released meanwhile: taken on the next round
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
