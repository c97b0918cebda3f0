import { Counter, Histogram } from "prom-client";
import { LATENCY_BUCKETS, registry } from "./registry.ts";

const labelNames = ["method", "route", "status"] as const;

/** Requests answered, by route template (not the raw path: bounded label values). */
export const httpRequests = new Counter({
  name: "launchpad_http_requests_total",
  help: "HTTP requests answered by the API, by method, route template and status code",
  labelNames,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: "launchpad_http_request_duration_seconds",
  help: "Time from a request's arrival to its answer's headers, by method, route template and status",
  labelNames,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const rateLimitRefusals = new Counter({
  name: "launchpad_rate_limit_refusals_total",
  help: "Requests refused with 429 by the per-client limiter, by kind of client (ip, agent, user, service)",
  labelNames: ["client"] as const,
  registers: [registry],
});

export const inboundWebhooks = new Counter({
  name: "launchpad_webhooks_inbound_total",
  help: "Inbound webhooks by source and outcome (accepted, or refused: signature, invalid, too_large, error)",
  labelNames: ["source", "outcome"] as const,
  registers: [registry],
});

/** One answered request: `route` is the template (`/v2/agents/:agent`) or `unmatched`. */
export function observeRequest(method: string, route: string, status: number, seconds: number) {
  const labels = { method, route, status: String(status) };
  httpRequests.inc(labels);
  httpDuration.observe(labels, seconds);
}

/** A 429 from the limiter; `client` is the principal's kind, `ip` for an anonymous client. */
export function countRateLimitRefusal(client: string) {
  rateLimitRefusals.inc({ client });
}

/** An inbound webhook's answer, by HTTP status. */
export function countInboundWebhook(source: string, status: number) {
  const outcome =
    status < 300
      ? "accepted"
      : status === 401
        ? "signature"
        : status === 413
          ? "too_large"
          : status < 500
            ? "invalid"
            : "error";
  inboundWebhooks.inc({ source, outcome });
}
