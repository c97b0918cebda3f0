import { afterAll, beforeAll, expect, inject } from "vitest";
import { HEAVY_SLOTS, takeHeavySlot, testFileCost } from "./helpers/heavy-slots.ts";

// A heavy file (a whole stack, Ponder, a chaos run) waits here for one of the heavy slots
// before its own hooks run, and frees it after them: HEAVY_SLOTS such files at once on the
// 2-core machine, and one more worker runs light ones (test/sequencer.ts orders them).
// The wait is recorded on the file (test/reporters/file-times.ts leaves it out of its time).
let release: (() => void) | undefined;
// biome-ignore lint/correctness/noEmptyPattern: vitest hands the file second, after fixtures it wants destructured
beforeAll(async ({}, file) => {
  const dir = inject("heavySlotsDir");
  const path = expect.getState().testPath;
  if (!dir || !path || !testFileCost(path).heavy) return;
  const asked = Date.now();
  release = await takeHeavySlot(dir, HEAVY_SLOTS);
  file.meta.heavySlotWaitMs = Date.now() - asked;
}, 3_600_000);
afterAll(() => release?.());
