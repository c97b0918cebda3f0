import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { serveWorld } from "../../helpers/world/serve.ts";
import type { WorldHost } from "../../helpers/world/world.ts";

export type Received = { headers: IncomingHttpHeaders; body: string; path: string; at: number };
/** How the receiver answers a request: a status, optionally after a delay. */
export type Answer =
  | number
  | { status: number; delayMs?: number; headers?: Record<string, string> };

/**
 * A real receiver in the public world: https at a public name (IPv4 only by default, IPv6 only
 * with `hooks6.example.org`), as production delivers to; records every request (raw body bytes
 * as sent) and answers as `answer` says for the path.
 */
export async function startReceiver(
  answer: (r: Received, n: number) => Answer = () => 200,
  host: WorldHost = "hooks.example.org",
) {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const server = await serveWorld(host, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: Received = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        path: req.url ?? "/",
        at: Date.now(),
      };
      received.push(r);
      for (const w of waiters.splice(0)) w();
      const n = received.filter((x) => x.path === r.path).length;
      const a = answer(r, n);
      const { status, delayMs = 0, headers = {} } = typeof a === "number" ? { status: a } : a;
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(status, headers).end("ok");
      }, delayMs);
    });
  });
  return {
    origin: server.origin,
    received,
    /** Resolves once `pred` holds for the requests received so far (polls on every request). */
    until: async (pred: (r: Received[]) => boolean, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!pred(received)) {
        if (Date.now() > deadline)
          throw new Error(`receiver: condition not met; got ${received.length} requests`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 200);
        });
      }
      return received;
    },
    close: server.close,
  };
}

/**
 * A Standard Webhooks verifier written from the specification (PROTOCOLS.md section 4), not
 * from our signing code: the key is the base64 after `whsec_`, the signed content
 * `${webhook-id}.${webhook-timestamp}.${raw body}`, HMAC-SHA256, base64; any `v1,` entry of
 * the space-separated header may match (rotation), compared in constant time; the timestamp
 * must be within 5 minutes. Returns the parsed payload or throws.
 */
export function verifyStandardWebhook(
  secret: string,
  headers: IncomingHttpHeaders,
  rawBody: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): unknown {
  const id = headers["webhook-id"];
  const ts = headers["webhook-timestamp"];
  const sigs = headers["webhook-signature"];
  if (typeof id !== "string" || typeof ts !== "string" || typeof sigs !== "string") {
    throw new Error("Missing required headers");
  }
  const timestamp = Number.parseInt(ts, 10);
  if (!Number.isInteger(timestamp)) throw new Error("Invalid Signature Headers");
  if (nowSeconds - timestamp > 300) throw new Error("Message timestamp too old");
  if (timestamp - nowSeconds > 300) throw new Error("Message timestamp too new");
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${ts}.${rawBody}`).digest();
  for (const entry of sigs.split(" ")) {
    const [version, sig] = entry.split(",");
    if (version !== "v1" || !sig) continue;
    const given = Buffer.from(sig, "base64");
    if (given.length === expected.length && timingSafeEqual(given, expected)) {
      return JSON.parse(rawBody);
    }
  }
  throw new Error("No matching signature found");
}
