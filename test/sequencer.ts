import { BaseSequencer, type TestSpecification } from "vitest/node";
import { HEAVY_SLOTS, testFileCost } from "./helpers/heavy-slots.ts";

/**
 * Heavy files longest first, the first `HEAVY_SLOTS` of them, then every light file, then the
 * other heavy ones: the first heavy files hold the heavy slots (test/setup-heavy.ts) for
 * minutes, mostly waiting on blocks, and the extra worker runs the light files beside them; a
 * long file started last would run alone at the end. Times are the ledger's last run
 * (docs/testing.md): a clean clone has no vitest cache.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const cost = new Map(sorted.map((f) => [f, testFileCost(f.moduleId)]));
    const byTime = (a: TestSpecification, b: TestSpecification) =>
      (cost.get(b)?.seconds ?? 0) - (cost.get(a)?.seconds ?? 0);
    // Array.prototype.sort is stable: equal times keep the base order.
    const heavy = sorted.filter((f) => cost.get(f)?.heavy).sort(byTime);
    const light = sorted.filter((f) => !cost.get(f)?.heavy).sort(byTime);
    return [...heavy.slice(0, HEAVY_SLOTS), ...light, ...heavy.slice(HEAVY_SLOTS)];
  }
}
