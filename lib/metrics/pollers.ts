import { Counter, Gauge } from "prom-client";
import type { Sql } from "../db/client.ts";
import { budgetStatus } from "../pollers/budget.ts";
import { registry, Sources } from "./registry.ts";

/** Databases whose venue budgets a scrape reads (the worker's). */
export const BUDGET_DATABASES = new Sources<Sql>();

export const pollerRuns = new Counter({
  name: "launchpad_poller_runs_total",
  help: "Polls of one agent, by poller (perps, safe, social) and outcome (ok, failed)",
  labelNames: ["poller", "outcome"] as const,
  registers: [registry],
});

/** The shared venue budget (docs/pollers.md "Rate budget"), read from the database on a scrape. */
const budget = (name: string, help: string, pick: (b: BudgetRow) => number) =>
  new Gauge({
    name,
    help,
    labelNames: ["venue"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const sql of BUDGET_DATABASES.all) {
        for (const b of await readBudgets(sql)) this.set({ venue: b.venue }, pick(b));
      }
    },
  });

type BudgetRow = Awaited<ReturnType<typeof budgetStatus>>[number];

// Three gauges read the same rows on one scrape: one query, shared for a second.
let cached: { at: number; sql: Sql; rows: Promise<BudgetRow[]> } | undefined;
function readBudgets(sql: Sql): Promise<BudgetRow[]> {
  if (cached && cached.sql === sql && Date.now() - cached.at < 1000) return cached.rows;
  const rows = budgetStatus(sql).catch(() => []);
  cached = { at: Date.now(), sql, rows };
  return rows;
}

budget(
  "launchpad_venue_weight_used",
  "Request weight spent at the venue in the current sliding window (all workers)",
  (b) => b.used,
);
budget("launchpad_venue_weight_limit", "The venue's weight budget per window", (b) => b.limit);
budget(
  "launchpad_venue_rate_limited",
  "429s the venue has answered, ever (a counter kept in the database)",
  (b) => b.rateLimited,
);
budget(
  "launchpad_venue_deferred_polls",
  "Polls put off for want of budget or during a back-off, ever (kept in the database)",
  (b) => b.deferred,
);

/** Runs one poll and counts it. */
export async function countPoll(poller: string, poll: () => Promise<void>): Promise<void> {
  try {
    await poll();
    pollerRuns.inc({ poller, outcome: "ok" });
  } catch (error) {
    pollerRuns.inc({ poller, outcome: "failed" });
    throw error;
  }
}
