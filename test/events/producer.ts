import { Agent, request } from "undici";
import { signWebhookBody } from "../../lib/webhooks/inbound/signature.ts";

/** One webhook to send: the path under /v2/webhooks, its secret and its body. */
export type Delivery = { path: string; secret: string; body: Record<string, unknown> };

/**
 * A mix of code-host events and inference.spent deliveries for `agents`, spread over a few
 * minutes so the roll-up merges deliveries into rows that already exist.
 */
export function makeDeliveries(p: {
  count: number;
  agents: string[];
  secrets: { codeHost: string; cloud: string };
  runId: string;
}): Delivery[] {
  const out: Delivery[] = [];
  const base = Date.UTC(2026, 10, 5, 8, 0);
  for (let i = 0; i < p.count; i++) {
    const agentId = p.agents[i % p.agents.length] as string;
    const occurredAt = new Date(base + (i % 240) * 1000).toISOString();
    const sourceEventId = `${p.runId}-${i}`;
    if (i % 3 === 0) {
      out.push({
        path: "cloud/inference",
        secret: p.secrets.cloud,
        body: {
          sourceEventId,
          eventType: "inference.spent",
          occurredAt,
          agentId,
          data: {
            provider: "cloud-x",
            model: "m",
            usd: `0.${String(1 + (i % 997)).padStart(4, "0")}`,
            tokensIn: i % 50,
            tokensOut: 7,
          },
        },
      });
    } else {
      out.push({
        path: "code-host",
        secret: p.secrets.codeHost,
        body: {
          sourceEventId,
          eventType: i % 3 === 1 ? "pr.merged" : "commit.pushed",
          occurredAt,
          agentId,
          data:
            i % 3 === 1
              ? {
                  repo: "acme/agent",
                  number: i + 1,
                  title: `PR ${i}`,
                  url: `https://git.example/pr/${i}`,
                }
              : {
                  repo: "acme/agent",
                  sha: i.toString(16).padStart(7, "0"),
                  message: `commit ${i}`,
                  url: "https://git.example/c",
                },
        },
      });
    }
  }
  return out;
}

export type SendResult = { accepted: number; retries: number; latencies: number[] };

/**
 * Sends every delivery over `connections` keep-alive connections, each signed at send time,
 * retrying (as a real sender does) until it gets a 200: a killed API loses no webhook it
 * answered. Anything but 200 or a connection error fails the run.
 */
export async function sendAll(p: {
  apiUrl: string;
  deliveries: Delivery[];
  connections: number;
  onAccepted?: (d: Delivery, at: number) => void;
}): Promise<SendResult> {
  const dispatcher = new Agent({
    connections: p.connections,
    pipelining: 1,
    keepAliveTimeout: 10_000,
  });
  let next = 0;
  let accepted = 0;
  let retries = 0;
  const latencies: number[] = [];
  const lane = async () => {
    for (;;) {
      const d = p.deliveries[next++];
      if (!d) return;
      for (let attempt = 0; ; attempt++) {
        const raw = JSON.stringify(d.body);
        const started = performance.now();
        try {
          const res = await request(`${p.apiUrl}/v2/webhooks/${d.path}`, {
            method: "POST",
            dispatcher,
            headers: {
              "content-type": "application/json",
              "x-webhook-signature": signWebhookBody({ secrets: [d.secret], body: raw }),
            },
            body: raw,
            headersTimeout: 10_000,
            bodyTimeout: 10_000,
          });
          const text = await res.body.text();
          if (res.statusCode === 200) {
            latencies.push(performance.now() - started);
            accepted++;
            p.onAccepted?.(d, Date.now());
            break;
          }
          if (res.statusCode < 500) throw new Error(`webhook refused ${res.statusCode}: ${text}`);
        } catch (error) {
          if (String(error).includes("webhook refused") || attempt > 200) throw error;
        }
        retries++;
        await new Promise((r) => setTimeout(r, 50 + Math.min(attempt, 10) * 50));
      }
    }
  };
  await Promise.all(Array.from({ length: p.connections }, lane));
  await dispatcher.close();
  return { accepted, retries, latencies };
}
