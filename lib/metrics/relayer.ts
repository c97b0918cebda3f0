import { Counter, Gauge } from "prom-client";
import { formatEther } from "viem";
import type { Sql } from "../db/client.ts";
import { type RelayerBudget, relayerSpentToday } from "../relayer/spend.ts";
import { registry } from "./registry.ts";

/** The ledger and the budget the API process counts relayer-paid launches against. */
export type RelayerSpendSource = { sql: Sql; budget: RelayerBudget };

let source: RelayerSpendSource | undefined;

/** The API process's ledger and budget (the latest app built wins: one per process in service). */
export function setRelayerSpendSource(s: RelayerSpendSource) {
  source = s;
}

const bnb = (wei: bigint) => Number(formatEther(wei));

new Gauge({
  name: "launchpad_relayer_spent_today_bnb",
  help: "BNB counted against the relayer's budget this UTC day: mined transactions at their cost, the others at their maximum",
  registers: [registry],
  async collect() {
    this.reset();
    const s = source;
    if (!s) return;
    const spent = await relayerSpentToday(s.sql).catch(() => undefined);
    if (spent !== undefined) this.set(bnb(spent));
  },
});

new Gauge({
  name: "launchpad_relayer_budget_bnb",
  help: "The relayer's budget per UTC day for callers without funds of their own (RELAYER_BUDGET_BNB_PER_DAY)",
  registers: [registry],
  collect() {
    this.reset();
    if (source) this.set(bnb(source.budget.perDayWei));
  },
});

const refusals = new Counter({
  name: "launchpad_relayer_budget_refusals_total",
  help: "Launches refused with 429 because the relayer would have paid past its budget: the client's hour (client) or the day (day)",
  labelNames: ["scope"] as const,
  registers: [registry],
});

/** A launch refused by the relayer's budget: `client` (its hour) or `day`. */
export function countRelayerBudgetRefusal(scope: "client" | "day") {
  refusals.inc({ scope });
}
