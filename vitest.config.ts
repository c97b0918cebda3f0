import { defineConfig } from "vitest/config";
import { HEAVY_SLOTS } from "./test/helpers/heavy-slots.ts";
import { LongestFirstSequencer } from "./test/sequencer.ts";

export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", ".launchpad/**", ".ponder/**"],
    // Tests start real Postgres, anvil and child processes: give them room. HEAVY_SLOTS heavy
    // files at once (test/setup-heavy.ts) on the 2-core CI machine, and a worker for light ones.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: HEAVY_SLOTS + 1,
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup-ports.ts", "test/setup-heavy.ts"],
    sequence: { sequencer: LongestFirstSequencer },
  },
});
