import { writeFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

declare module "vitest" {
  interface TaskMeta {
    /** How long the file waited for a heavy slot (test/setup-heavy.ts), in ms. */
    heavySlotWaitMs?: number;
  }
}

/**
 * Writes each test file's own time, hooks included, to `LAUNCHPAD_TEST_TIMES` (JSON:
 * `{ "fileTimes": { "<path>": seconds } }`) for the ledger (`npm run test:ledger`). Vitest's
 * JSON report times a file from its first test to its last: a file whose stack boots in a
 * `beforeAll` showed a fraction of a second, and the sequencer started it last. The wait for a
 * heavy slot is taken out: it is the run's order, not the file's cost.
 */
export default class FileTimesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const out = process.env.LAUNCHPAD_TEST_TIMES;
    if (!out) return;
    const fileTimes: Record<string, number> = {};
    for (const m of modules) {
      const d = m.diagnostic();
      const ms = d.setupDuration + d.collectDuration + d.duration - (m.meta().heavySlotWaitMs ?? 0);
      fileTimes[m.moduleId] = Math.round(ms) / 1000;
    }
    writeFileSync(out, `${JSON.stringify({ fileTimes }, null, 2)}\n`);
  }
}
