import { globSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { HEAVY_SLOTS, testFileCost } from "./test/helpers/heavy-slots.ts";
import { LongestFirstSequencer } from "./test/sequencer.ts";

const include = ["**/*.test.ts"];
const exclude = ["node_modules/**", ".launchpad/**", ".ponder/**"];
// Light files (no stack, short in the ledger) share their workers' module graph: a fresh worker
// per file costs each one about half a CPU-second of start-up and imports (docs/benchmarks.md,
// "Test suite"). Heavy files keep a worker each.
const light = globSync(include, { exclude }).filter((file) => !testFileCost(file).heavy);

export default defineConfig({
  test: {
    // Tests start real Postgres, anvil and child processes: give them room. HEAVY_SLOTS heavy
    // files at once (test/setup-heavy.ts) on the 2-core CI machine, and a worker for light ones.
    // The timeouts catch a hang, not a slow machine: the same suite takes twice as long or more
    // on a slower machine (docs/benchmarks.md, "Test suite").
    testTimeout: 180_000,
    hookTimeout: 300_000,
    maxWorkers: HEAVY_SLOTS + 1,
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup-ports.ts", "test/setup-heavy.ts"],
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      { extends: true, test: { name: "light", include: light, exclude, isolate: false } },
      { extends: true, test: { name: "heavy", include, exclude: [...exclude, ...light] } },
    ],
  },
});
