import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import { registry } from "./registry.ts";

/**
 * Who may scrape: anyone outside production; in production only a bearer of ADMIN_TOKEN, and
 * nobody (the endpoint is off, 404) when no ADMIN_TOKEN is set.
 */
export type ScrapePolicy = { env: string; adminToken?: string };
export type ScrapeVerdict = "ok" | "unauthorized" | "off";

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Judges a scrape by its Authorization header, comparing the token in constant time. */
export function judgeScrape(p: ScrapePolicy, authorization: string | null | undefined) {
  if (p.env !== "production") return "ok" satisfies ScrapeVerdict;
  if (!p.adminToken) return "off" satisfies ScrapeVerdict;
  const got = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? "";
  // Digests first: equal lengths, so the comparison leaks neither the token nor its length.
  return timingSafeEqual(digest(got), digest(p.adminToken)) && got !== ""
    ? ("ok" satisfies ScrapeVerdict)
    : ("unauthorized" satisfies ScrapeVerdict);
}

/** The registry in the Prometheus text format, with its content type. */
export async function scrape(): Promise<{ body: string; contentType: string }> {
  return { body: await registry.metrics(), contentType: registry.contentType };
}

/** The API's error envelope (api/errors.ts), for the worker's own small server. */
const envelope = (error: string, message: string) => JSON.stringify({ ok: false, error, message });

/**
 * The worker's `GET /metrics` on its own port (it serves no other HTTP). Resolves once it
 * listens; `close()` stops it.
 */
export function serveMetrics(p: {
  host: string;
  port: number;
  policy: ScrapePolicy;
}): Promise<{ server: Server; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    const verdict = judgeScrape(p.policy, req.headers.authorization);
    if (path !== "/metrics" || verdict === "off") {
      return send(404, "application/json", envelope("not_found", `no route for ${path}`));
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      return send(405, "application/json", envelope("method_not_allowed", "GET /metrics"));
    }
    if (verdict === "unauthorized") {
      res.setHeader("www-authenticate", "Bearer");
      return send(
        401,
        "application/json",
        envelope(
          "not_authenticated",
          "send the operator token: Authorization: Bearer <ADMIN_TOKEN>",
        ),
      );
    }
    scrape().then(
      (m) => send(200, m.contentType, m.body),
      () => send(500, "application/json", envelope("internal_error", "metrics unavailable")),
    );
  });
  server.requestTimeout = 10_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(p.port, p.host, () => {
      server.off("error", reject);
      resolve({
        server,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
