import { loadArtifacts } from "../contracts/compile.ts";

/**
 * Compiles the contracts once before any test file runs: test files start in parallel and
 * would otherwise each run solc-js on a cold cache.
 */
export default async function setup(): Promise<void> {
  await loadArtifacts();
}
