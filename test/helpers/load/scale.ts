import type { TableSizes } from "./checks.ts";
import { sizeGrowth } from "./checks.ts";
import { priceRpc } from "./pricing.ts";

const DAY = 86_400;

/**
 * What the run's window added to Postgres and asked of the RPC, scaled to a day (and a month)
 * at the run's own rate, with the RPC's price on the plans of pricing.ts.
 */
export function scaleToDay(p: {
  seconds: number;
  sizesBefore: TableSizes;
  sizesAfter: TableSizes;
  callsBefore: Record<string, number>;
  callsAfter: Record<string, number>;
}) {
  const growth = sizeGrowth(p.sizesBefore, p.sizesAfter);
  const perDay = (x: number) => Math.round((x / p.seconds) * DAY);
  const calls = Object.fromEntries(
    Object.entries(p.callsAfter).map(([k, v]) => [k, v - (p.callsBefore[k] ?? 0)]),
  );
  const callsPerDay = Object.fromEntries(Object.entries(calls).map(([k, v]) => [k, perDay(v)]));
  return {
    postgres: {
      added: growth.total,
      perDay: { rows: perDay(growth.total.rows), bytes: perDay(growth.total.bytes) },
      perMonth: { rows: perDay(growth.total.rows) * 30, bytes: perDay(growth.total.bytes) * 30 },
      tables: growth.tables,
    },
    rpc: { calls, perDay: callsPerDay, price: priceRpc(callsPerDay) },
  };
}
