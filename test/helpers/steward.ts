import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { pino } from "pino";
import { createStewardApp } from "../../devnet/stand-ins/steward/server.ts";

/**
 * The steward stand-in on a free port with a webhook receiver that answers 200, for tests and
 * benchmarks that need only wallets, messages and policies (no chain calls are made).
 *
 * @example
 * const s = await startLocalSteward(); // s.url, s.apiKey; await s.stop();
 */
export async function startLocalSteward() {
  const TENANT = "launchpad-test";
  const dir = mkdtempSync(join(tmpdir(), "steward-"));
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const apiKey = randomBytes(24).toString("hex");
  const app = createStewardApp({
    rpcUrl: "http://127.0.0.1:1",
    chainId: 56,
    apiKey,
    tenantId: TENANT,
    webhookBaseUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    webhookSecret: "bench-steward-secret-0123456789",
    storePath: join(dir, "store.json"),
    masterKey: randomBytes(32),
    log: pino({ level: "silent" }),
    // Benchmarks and policy suites sign in bursts from one address, far past one production
    // caller's pace; Steward's 100 a minute is the stand-in's own test's
    // (devnet/stand-ins/steward/rate-limit.test.ts).
    requestsPerMinute: 1_000_000,
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey,
    tenantId: TENANT,
    stop: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      await new Promise<void>((r) => receiver.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
