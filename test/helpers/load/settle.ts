import type { Sql } from "../../../lib/db/client.ts";
import type { LagTracker } from "./lag.ts";

/**
 * After the load: waits (up to `timeoutMs`) until the index is at the head it saw when the
 * load stopped and no delivery of the run's subscriptions is held, pending or in flight.
 */
export async function settle(p: {
  sql: Sql;
  lag: LagTracker;
  subscriptions: string[];
  log: (line: string) => void;
  timeoutMs?: number;
}): Promise<void> {
  const target = p.lag.head();
  const deadline = Date.now() + (p.timeoutMs ?? 180_000);
  for (;;) {
    const [row] = await p.sql<{ n: number }[]>`
      select count(*)::int as n from app.webhook_deliveries
      where subscription_id = any(${p.subscriptions}) and status in ('held', 'pending', 'delivering')`;
    const open = row?.n ?? 0;
    if (p.lag.indexed() >= target && open === 0) return;
    if (Date.now() > deadline) {
      p.log(
        `load: not settled after the wait (index ${p.lag.indexed()}/${target}, ${open} deliveries open)`,
      );
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
