import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { ledgerTimes } from "../scripts/test-ledger.ts";

/**
 * Longest first, from the times of the last run in the ledger (docs/testing.md): a clean clone
 * has no vitest cache, and a long file started last runs alone at the end while the other
 * workers idle. A file the ledger has no time for is guessed from what it starts: a whole
 * stack (`startStack(`, `runChaos(`) for a minute, five with `sequencer: first`, else a second.
 */
const STACK = /startStack\(|runChaos\(/;
const LONGEST = /sequencer: first/;
const ROOT = join(import.meta.dirname, "..");

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const times = ledgerTimes(readFileSync(join(ROOT, "docs", "testing.md"), "utf8"));
    const seconds = new Map<TestSpecification, number>();
    for (const f of sorted) {
      const known = times.get(relative(ROOT, f.moduleId));
      if (known !== undefined) seconds.set(f, known);
      else {
        const text = readFileSync(f.moduleId, "utf8");
        seconds.set(f, LONGEST.test(text) ? 300 : STACK.test(text) ? 60 : 1);
      }
    }
    // Stable: equal times keep the base order.
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => (seconds.get(b.f) ?? 0) - (seconds.get(a.f) ?? 0) || a.i - b.i)
      .map(({ f }) => f);
  }
}
