import { readFileSync } from "node:fs";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { serveMetrics } from "../../../lib/metrics/expose.ts";
import { registry } from "../../../lib/metrics/registry.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError, renderError } from "../../errors.ts";
import { countWebhook, metrics } from "./index.ts";

const TOKEN = "t".repeat(40);

/** A series' value in the registry now (0 when it has not been seen). */
async function value(name: string, labels: Record<string, string>): Promise<number> {
  const m = await registry.getSingleMetric(name)?.get();
  const hit = m?.values.find((v) =>
    Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want),
  );
  return hit?.value ?? 0;
}

function app(env = "test", adminToken?: string) {
  const a = new Hono<AppEnv>();
  a.use(metrics({ env, adminToken }));
  a.get("/v2/agents/:agent", (c) => c.json({ ok: true }));
  a.use("/v2/webhooks/code-host", countWebhook("code-host"));
  a.post("/v2/webhooks/code-host", (c) => {
    if (c.req.header("x-webhook-signature") !== "good") {
      throw new HttpError("not_authenticated", { message: "bad signature" });
    }
    return c.json({ ok: true });
  });
  a.notFound((c) => renderError(c, new HttpError("not_found", { message: "none" })));
  a.onError((e, c) => renderError(c, e));
  return a;
}

describe("metrics", () => {
  it("counts requests by route template, not by raw path, and unknown paths as unmatched", async () => {
    const labels = { method: "GET", route: "/v2/agents/:agent", status: "200" };
    const before = await value("launchpad_http_requests_total", labels);
    const unmatched = { method: "GET", route: "unmatched", status: "404" };
    const before404 = await value("launchpad_http_requests_total", unmatched);
    const a = app();
    await a.request("/v2/agents/0xaaa");
    await a.request("/v2/agents/0xbbb");
    await a.request(`/nothing/${Math.random()}`);
    expect(await value("launchpad_http_requests_total", labels)).toBe(before + 2);
    expect(await value("launchpad_http_requests_total", unmatched)).toBe(before404 + 1);
    const text = await (await a.request("/metrics")).text();
    expect(text).toContain('launchpad_http_request_duration_seconds_bucket{le="0.005"');
    expect(text).not.toContain("0xaaa");
  });

  it("counts inbound webhooks accepted and refused by source", async () => {
    const ok = { source: "code-host", outcome: "accepted" };
    const refused = { source: "code-host", outcome: "signature" };
    const [okBefore, refusedBefore] = [
      await value("launchpad_webhooks_inbound_total", ok),
      await value("launchpad_webhooks_inbound_total", refused),
    ];
    const a = app();
    const post = (sig: string) =>
      a.request("/v2/webhooks/code-host", {
        method: "POST",
        headers: { "x-webhook-signature": sig },
      });
    expect((await post("good")).status).toBe(200);
    expect((await post("bad")).status).toBe(401);
    expect(await value("launchpad_webhooks_inbound_total", ok)).toBe(okBefore + 1);
    expect(await value("launchpad_webhooks_inbound_total", refused)).toBe(refusedBefore + 1);
  });

  it("serves the Prometheus text format to anyone outside production", async () => {
    const res = await app("development").request("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4");
    expect(await res.text()).toContain("# TYPE launchpad_http_requests_total counter");
  });

  it("in production answers only the operator's token, and is off without one", async () => {
    const guarded = app("production", TOKEN);
    expect((await guarded.request("/metrics")).status).toBe(401);
    const wrong = { authorization: `Bearer ${"x".repeat(40)}` };
    expect((await guarded.request("/metrics", { headers: wrong })).status).toBe(401);
    const right = { authorization: `Bearer ${TOKEN}` };
    expect((await guarded.request("/metrics", { headers: right })).status).toBe(200);
    const off = await app("production").request("/metrics", { headers: right });
    expect(off.status).toBe(404);
    expect(await off.json()).toMatchObject({ ok: false, error: "not_found" });
  });

  it("the worker's own server: /metrics only, behind the token in production", async () => {
    const m = await serveMetrics({
      host: "127.0.0.1",
      port: 0,
      policy: { env: "production", adminToken: TOKEN },
    });
    try {
      const { port } = m.server.address() as { port: number };
      const url = `http://127.0.0.1:${port}`;
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      expect((await fetch(`${url}/other`)).status).toBe(404);
      const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("process_cpu_seconds_total");
    } finally {
      await m.close();
    }
  });
});

describe("docs/grafana-dashboard.json", () => {
  it("reads only series the roles define", async () => {
    // Every role module's series, as a scrape of both roles would show them.
    await Promise.all([
      import("../../../lib/metrics/jobs.ts"),
      import("../../../lib/metrics/outbound.ts"),
      import("../../../lib/metrics/pollers.ts"),
      import("../../../lib/metrics/indexer.ts"),
      import("../../../lib/metrics/ws.ts"),
      import("../../../lib/metrics/relayer.ts"),
    ]);
    const dashboard = readFileSync(
      new URL("../../../docs/grafana-dashboard.json", import.meta.url),
      "utf8",
    );
    const used = new Set(dashboard.match(/launchpad_[a-z_]+/g));
    const defined = new Set(registry.getMetricsAsArray().map((m) => m.name));
    const known = (n: string) =>
      defined.has(n) || defined.has(n.replace(/_(bucket|count|sum)$/, ""));
    expect([...used].filter((n) => !known(n))).toEqual([]);
    expect(used.size).toBeGreaterThan(15);
  });
});
