import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./test/sequencer.ts";

export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", ".launchpad/**", ".ponder/**"],
    // Tests start real Postgres, anvil and child processes: give them room, and keep the
    // 2-core CI machine from running too many stacks at once.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup-ports.ts"],
    sequence: { sequencer: LongestFirstSequencer },
  },
});
