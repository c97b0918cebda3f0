import { serveWorld } from "../world/serve.ts";

type Receipt = { webhookId: string; at: number; type: string; sourceEventId?: string };

/**
 * Live receivers for outbound webhooks at the public world's `hooks.example.org` (a public
 * address, as the service's guard requires of every receiver; the harness runs inside the
 * world), one HTTPS server with a path per subscription. Subscribes `agents` (up to `count`)
 * through the real API, to everything they emit.
 */
export async function startWebhooks(p: {
  apiUrl: string;
  agents: { agentId: string; apiKey: string }[];
  count: number;
  blockOf: (txHash: string) => bigint | undefined;
  seenAt: (block: number) => number | undefined;
}) {
  const receipts: Receipt[] = [];
  let delays: number[] = [];
  const server = await serveWorld("hooks.example.org", (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const now = Date.now();
      res.writeHead(200).end("ok");
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          type: string;
          data?: { sourceEventId?: string };
        };
        const sourceEventId = body.data?.sourceEventId;
        receipts.push({
          webhookId: String(req.headers["webhook-id"]),
          at: now,
          type: body.type,
          sourceEventId,
        });
        // A chain event's source id is `${chainId}:${txHash}:${logIndex}`.
        const tx = sourceEventId?.split(":")[1];
        const block = tx ? p.blockOf(tx) : undefined;
        const seen = block === undefined ? undefined : p.seenAt(Number(block));
        if (seen !== undefined) delays.push(now - seen);
      } catch {}
    });
  });
  const subscriptions: string[] = [];
  for (const a of p.agents.slice(0, p.count)) {
    const r = await fetch(`${p.apiUrl}/v2/agents/${a.agentId}/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `${server.origin}/hook/${a.agentId}`, description: "load" }),
    });
    const body = (await r.json()) as { data?: { subscriptionId: string } };
    if (r.status !== 201 || !body.data)
      throw new Error(`webhook subscription: ${r.status} ${JSON.stringify(body)}`);
    subscriptions.push(body.data.subscriptionId);
  }
  return {
    subscriptions,
    receipts,
    take: () => {
      const out = delays;
      delays = [];
      return out;
    },
    close: () => server.close(),
  };
}
