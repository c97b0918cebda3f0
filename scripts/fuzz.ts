import { parseArgs } from "node:util";
import { fuzz } from "../test/helpers/fuzz/runner.ts";
import { fuzzStack } from "../test/helpers/fuzz/stack.ts";

// `npm run fuzz -- --runs N --seed S [--only REGEX] [--url URL]`: fuzzes every operation of
// /openapi.json. Without --url it boots its own stack (test mode, an agent, a SIWE session,
// the operator token) and also checks that refused requests change no app table; with --url it
// fuzzes that service anonymously (FUZZ_AGENT_KEY, FUZZ_ADMIN_TOKEN add credentials).

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "200" },
    seed: { type: "string", default: String(Date.now() % 2 ** 31) },
    only: { type: "string" },
    url: { type: "string" },
    trace: { type: "boolean", default: false },
  },
});
const seed = Number(values.seed);
const runs = Number(values.runs);
const only = values.only ? new RegExp(values.only.replace(/[{}]/g, "\\$&")) : undefined;
const started = Date.now();
console.log(`fuzz: seed ${seed}, ${runs} cases per operation`);

const stack = values.url ? undefined : await fuzzStack();
const base = stack?.options ?? {
  baseUrl: values.url as string,
  credentials: async () => ({
    ...(process.env.FUZZ_AGENT_KEY
      ? { agentKey: { authorization: `Bearer ${process.env.FUZZ_AGENT_KEY}` } }
      : {}),
    ...(process.env.FUZZ_ADMIN_TOKEN
      ? { operatorToken: { authorization: `Bearer ${process.env.FUZZ_ADMIN_TOKEN}` } }
      : {}),
  }),
};
try {
  const trace = values.trace ? (l: string) => console.log(`  ${l}`) : undefined;
  const report = await fuzz({ ...base, seed, runs, only, trace, log: (l) => console.log(l) });
  const statuses: Record<string, number> = {};
  for (const op of report.operations)
    for (const [s, n] of Object.entries(op.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
  console.log(
    `\nfuzz: ${report.operations.length} operations, ${report.requests} requests in ${Math.round((Date.now() - started) / 1000)} s, statuses ${JSON.stringify(statuses)}`,
  );
  console.log(`fuzz: ${report.failures.length} failing operations (seed ${seed})`);
  for (const f of report.failures)
    console.log(`  ${f.op}\n    ${f.failure?.problems.join("\n    ")}`);
  process.exitCode = report.failures.length > 0 ? 1 : 0;
} finally {
  await stack?.close();
}
