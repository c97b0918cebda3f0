import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { loadArtifacts } from "../contracts/compile.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where heavy test files take their slots (test/helpers/heavy-slots.ts), one per run. */
    heavySlotsDir: string;
  }
}

/**
 * Compiles the contracts once before any test file runs: test files start in parallel and
 * would otherwise each run solc-js on a cold cache. Gives the run its heavy-slot folder.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  await loadArtifacts();
  const dir = mkdtempSync(join(tmpdir(), "launchpad-heavy-"));
  project.provide("heavySlotsDir", dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
