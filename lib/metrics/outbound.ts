import { Counter, Gauge, Histogram } from "prom-client";
import type { Sql } from "../db/client.ts";
import { registry, SLOW_BUCKETS, Sources } from "./registry.ts";

/** Databases whose outbound subscriptions a scrape counts (the worker's). */
export const OUTBOUND_DATABASES = new Sources<Sql>();

export const outboundAttempts = new Counter({
  name: "launchpad_outbound_attempts_total",
  help: "Outbound webhook delivery attempts, by outcome (ok: a 2xx in time, failed)",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const outboundLag = new Histogram({
  name: "launchpad_outbound_delivery_lag_seconds",
  help: "Time from a delivery becoming due (event fanned out, or chain event final) to the receiver's 2xx",
  buckets: SLOW_BUCKETS,
  registers: [registry],
});

new Gauge({
  name: "launchpad_outbound_dead_subscriptions",
  help: "Outbound webhook subscriptions disabled by the dispatcher, by reason (gone: the receiver answered 410, failing: 24 h of failures)",
  labelNames: ["reason"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const sql of OUTBOUND_DATABASES.all) {
      const rows = await sql<{ reason: string; n: number }[]>`
        select disabled_reason as reason, count(*)::int as n from app.webhook_subscriptions
        where not enabled and disabled_reason in ('gone', 'failing') group by 1`.catch(() => []);
      this.set({ reason: "gone" }, 0);
      this.set({ reason: "failing" }, 0);
      for (const r of rows) this.set({ reason: r.reason }, r.n);
    }
  },
});

/** One attempt's result; a success also records how long the delivery was due. */
export function countOutboundAttempt(ok: boolean, dueSince: Date | null) {
  outboundAttempts.inc({ outcome: ok ? "ok" : "failed" });
  if (ok && dueSince) outboundLag.observe(Math.max(0, Date.now() - dueSince.getTime()) / 1000);
}
