import { readFileSync } from "node:fs";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that boot a whole stack (supervisor, Postgres, two chains, every role) run for minutes;
 * on a clean clone vitest has no durations and starts the largest files first, so a long stack
 * file could start last and run alone at the end. These start first, and before them the few
 * that run for five minutes or more and say so (`sequencer: first`).
 */
const STACK = /startStack\(|runChaos\(/;
const LONGEST = /sequencer: first/;

export class StacksFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const weight = new Map<TestSpecification, number>();
    for (const f of sorted) {
      const text = readFileSync(f.moduleId, "utf8");
      weight.set(f, LONGEST.test(text) ? 2 : STACK.test(text) ? 1 : 0);
    }
    // Stable: within each group the base order (known durations, else size) holds.
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => (weight.get(b.f) ?? 0) - (weight.get(a.f) ?? 0) || a.i - b.i)
      .map(({ f }) => f);
  }
}
