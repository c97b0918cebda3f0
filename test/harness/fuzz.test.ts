import { afterAll, beforeAll, expect, it } from "vitest";
import { fuzz } from "../helpers/fuzz/runner.ts";
import { type FuzzStack, fuzzStack } from "../helpers/fuzz/stack.ts";

// Every operation of the running service's /openapi.json, fuzzed from its own schemas: one
// booted stack, a fixed seed, a bounded number of cases per operation (FUZZ_RUNS, default 12).
// The long run is `npm run fuzz -- --runs N --seed S`.

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);

let f: FuzzStack | undefined;
beforeAll(async () => {
  f = await fuzzStack();
}, 300_000);
afterAll(async () => {
  await f?.close();
});

it("every operation: no 5xx, declared statuses and schemas, the envelope, no leak, refusals change nothing, auth first", async () => {
  const s = f as FuzzStack;
  const report = await fuzz({ ...s.options, seed: SEED, runs: RUNS, log: (l) => console.log(l) });
  expect(report.operations.length).toBeGreaterThan(30);
  expect(report.requests).toBeGreaterThanOrEqual(report.operations.length * RUNS);
  expect(
    report.failures.map((r) => `${r.op}: ${r.failure?.problems.join(" | ")}\n  ${r.failure?.curl}`),
  ).toEqual([]);
}, 300_000);
