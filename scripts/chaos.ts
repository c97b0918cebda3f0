import { parseArgs } from "node:util";
import { runChaos } from "../test/helpers/chaos/run.ts";

// `npm run chaos -- [--seconds S] [--agents N] [--every MS] [--seed S]`: the whole stack under
// load (launches, signed webhooks, reads, trades) while roles are SIGKILLed and the RPC is
// paused; then the comparisons (launches once on chain, webhooks once in agent_events, the
// index equal to the chain, no unexpected 5xx, every role back). Exit 1 on any problem.

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "300" },
    agents: { type: "string", default: "12" },
    every: { type: "string", default: "4000" },
    seed: { type: "string", default: String(Date.now() % 2 ** 31) },
  },
});
const started = Date.now();
console.log(`chaos: seed ${values.seed}`);
const report = await runChaos({
  loadMs: Number(values.seconds) * 1000,
  agents: Number(values.agents),
  actionEveryMs: Number(values.every),
  seed: Number(values.seed),
  log: (l) => console.log(l),
});
console.log(`chaos: done in ${Math.round((Date.now() - started) / 1000)} s`);
process.exitCode = report.problems.length > 0 ? 1 : 0;
