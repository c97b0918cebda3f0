import type { PgBoss } from "pg-boss";
import type { Sql } from "../db/client.ts";
import { INSTANCE_DATABASES } from "./instances.ts";
import { instrumentBoss } from "./jobs.ts";
import { OUTBOUND_DATABASES } from "./outbound.ts";
import { BUDGET_DATABASES } from "./pollers.ts";

/**
 * Everything the worker's scrape reads: its pg-boss queues (and timing of every handler it
 * registers from now on), its outbound subscriptions, the venue budgets and every role's instances. Returns the
 * function that stops reading them (the worker's stop).
 */
export function watchWorker(p: { boss: PgBoss; sql: Sql }): () => void {
  const removers = [
    instrumentBoss(p.boss),
    OUTBOUND_DATABASES.add(p.sql),
    BUDGET_DATABASES.add(p.sql),
    INSTANCE_DATABASES.add({ sql: p.sql }),
  ];
  return () => {
    for (const r of removers) r();
  };
}
