import { collectDefaultMetrics, Registry } from "prom-client";

/**
 * The process's one metrics registry: the Node process metrics (CPU, memory, event loop lag,
 * GC) plus the service's own `launchpad_*` series defined beside this file. Both roles expose
 * every series; one a role never touches stays at zero or absent.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Latency buckets in seconds: from a cached read (ms) to a slow upstream (10 s). */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Buckets for work measured in seconds to minutes (a saga step, a job's wait, a delivery's lag). */
export const SLOW_BUCKETS = [0.05, 0.25, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];

/**
 * Things a collected gauge reads at scrape time (a database, a pg-boss instance) that exist
 * only once a role has started them. Tests start several in one process: each adds its own and
 * removes it when it stops; a scrape reads them all and skips one that fails.
 *
 * @example
 * const remove = QUEUES.add(boss); ... remove();
 */
export class Sources<T> {
  private readonly items = new Set<T>();
  add(item: T): () => void {
    this.items.add(item);
    return () => void this.items.delete(item);
  }
  get all(): T[] {
    return [...this.items];
  }
}
