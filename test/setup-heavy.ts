import { afterAll, beforeAll, expect, inject } from "vitest";
import { HEAVY_SLOTS, takeHeavySlot, testFileCost } from "./helpers/heavy-slots.ts";

// A heavy file (a whole stack, Ponder, a chaos run) waits here for one of the heavy slots
// before its own hooks run, and frees it after them: two such files at once on the 2-core
// machine, and the third worker runs light ones (test/sequencer.ts orders them).
let release: (() => void) | undefined;
beforeAll(async () => {
  const dir = inject("heavySlotsDir");
  const path = expect.getState().testPath;
  if (!dir || !path || !testFileCost(path).heavy) return;
  release = await takeHeavySlot(dir, HEAVY_SLOTS);
}, 3_600_000);
afterAll(() => release?.());
