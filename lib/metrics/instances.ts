import { Gauge } from "prom-client";
import type { Sql } from "../db/client.ts";
import { BEATING_ROLES, type RoleInstances, readInstances } from "../heartbeat/instances.ts";
import { registry, Sources } from "./registry.ts";

/** Databases whose instance heartbeats a scrape reads (the API's and the worker's). */
export const INSTANCE_DATABASES = new Sources<{ sql: Sql; silentAfterMs?: number }>();

/** One read per scrape for both gauges. */
let cached: { at: number; rows: Promise<Record<string, RoleInstances>[]> } | undefined;
function read(): Promise<Record<string, RoleInstances>[]> {
  if (cached && Date.now() - cached.at < 1000) return cached.rows;
  const rows = Promise.all(
    INSTANCE_DATABASES.all.map((s) =>
      readInstances(s.sql, { roles: BEATING_ROLES, silentAfterMs: s.silentAfterMs }).catch(
        () => ({}),
      ),
    ),
  );
  cached = { at: Date.now(), rows };
  return rows;
}

new Gauge({
  name: "launchpad_instances",
  help: "Instances of each role by heartbeat: live (beat within 30 s) or silent (kept 24 h, then pruned)",
  labelNames: ["role", "state"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const byRole of await read())
      for (const [role, r] of Object.entries(byRole)) {
        this.set({ role, state: "live" }, r.live.length);
        this.set({ role, state: "silent" }, r.silent.length);
      }
  },
});

new Gauge({
  name: "launchpad_instance_silent_seconds",
  help: "Seconds since a silent instance's last heartbeat, one series per silent instance",
  labelNames: ["role", "instance", "host"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const byRole of await read())
      for (const [role, r] of Object.entries(byRole))
        for (const i of r.silent)
          this.set({ role, instance: i.instanceId, host: i.host }, Math.round(i.silentSeconds));
  },
});
