import { signWebhookBody } from "../../../lib/webhooks/inbound/signature.ts";
import { nextIp } from "../launch.ts";

/** What the load saw: requests by kind and status (`net` = no answer). */
export type LoadStats = {
  byStatus: Record<string, Record<string, number>>;
  /** 5xx answers that are not a 503 with Retry-After or a documented launch 502/503. */
  unexpected5xx: string[];
};

export function newStats(): LoadStats {
  return { byStatus: {}, unexpected5xx: [] };
}

export type Answer = { status: number; body: Record<string, unknown>; retryAfter: string | null };

/**
 * One request through a "load balancer" over the API processes: a random one, and on no
 * answer (a killed process) the next, as a client retries. Counted in `stats` under `kind`.
 */
export async function call(
  apis: string[],
  stats: LoadStats,
  kind: string,
  path: string,
  init: RequestInit = {},
  timeoutMs = 30_000,
): Promise<Answer | undefined> {
  const first = Math.floor(Math.random() * apis.length);
  for (let i = 0; i < apis.length; i++) {
    const base = apis[(first + i) % apis.length] as string;
    const count = (k: string) => {
      const s = stats.byStatus[kind] ?? {};
      stats.byStatus[kind] = s;
      s[k] = (s[k] ?? 0) + 1;
    };
    try {
      const res = await fetch(`${base}${path}`, {
        ...init,
        headers: { "x-forwarded-for": nextIp(), ...(init.headers as Record<string, string>) },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {}
      count(String(res.status));
      const retryAfter = res.headers.get("retry-after");
      const launch = path === "/v2/agents/launch";
      // 503 only with Retry-After (a dependency down); 502 LAUNCHPAD_ERROR is the launch's own.
      const documented =
        (res.status === 503 && retryAfter !== null) || (res.status === 502 && launch);
      if (res.status >= 500 && !documented)
        stats.unexpected5xx.push(
          `${init.method ?? "GET"} ${path} ${res.status} ${text.slice(0, 200)}`,
        );
      return { status: res.status, body, retryAfter };
    } catch {
      count("net");
    }
  }
  return undefined;
}

/** A code-host webhook for `agentId` with a stable id, signed as the sender does. */
export function webhook(secret: string, agentId: string, sourceEventId: string, seq: number) {
  const raw = JSON.stringify({
    sourceEventId,
    eventType: "commit.pushed",
    occurredAt: new Date().toISOString(),
    agentId,
    data: {
      repo: "acme/agent",
      sha: seq.toString(16).padStart(7, "0"),
      message: "chaos",
      url: "https://git.example/c",
    },
  });
  return {
    method: "POST",
    body: raw,
    headers: {
      "content-type": "application/json",
      "x-webhook-signature": signWebhookBody({ secrets: [secret], body: raw }),
    },
  };
}
