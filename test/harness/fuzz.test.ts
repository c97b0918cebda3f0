import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secondApi } from "../helpers/chaos/roles.ts";
import { crossAgentRequests } from "../helpers/fuzz/bola.ts";
import { fuzz } from "../helpers/fuzz/runner.ts";
import { type FuzzStack, fuzzStack } from "../helpers/fuzz/stack.ts";
import { ADMIN_TOKEN, nextIp } from "../helpers/launch.ts";

// One booted stack (`launchpad start`, test mode) serves three proofs: every operation of its
// /openapi.json fuzzed from its own schemas (a fixed seed, FUZZ_RUNS cases per operation; the
// long run is `npm run fuzz -- --runs N --seed S`), one agent's key aimed at another agent's
// resources on every agent route (OWASP API1), and key rotation/revocation taking effect at
// once on another API process (API2).

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const WEB = "http://127.0.0.1:3000";

let f: FuzzStack;
beforeAll(async () => {
  f = await fuzzStack();
}, 300_000);
afterAll(async () => {
  await f?.close();
});

async function admin(path: string, body: unknown = {}) {
  const res = await fetch(`${f.stack.apiUrl}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      "content-type": "application/json",
      "x-forwarded-for": nextIp(),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data: Record<string, string> } };
}

describe("the service against its own contract", () => {
  it("fuzz: no 5xx, declared statuses and schemas, the envelope, no leak, refusals change nothing, credentials first", async () => {
    const report = await fuzz({ ...f.options, seed: SEED, runs: RUNS, log: (l) => console.log(l) });
    expect(report.operations.length).toBeGreaterThan(60);
    expect(report.requests).toBeGreaterThanOrEqual(report.operations.length * RUNS * 0.9);
    expect(
      report.failures.map(
        (r) => `${r.op}: ${r.failure?.problems.join(" | ")}\n  ${r.failure?.curl}`,
      ),
    ).toEqual([]);
  }, 600_000);

  it("API1: an agent's key on another agent's resources is refused on every agent route and changes nothing", async () => {
    const owner = (await admin("/v2/admin/agents", { name: "bola-owner" })).body.data;
    const intruder = (await admin("/v2/admin/agents", { name: "bola-intruder" })).body.data;
    const tokenAddress = `0x${"b0".repeat(20)}`;
    await f.sql`update app.agents set token_address = ${tokenAddress} where agent_id = ${owner?.agentId ?? ""}`;
    const results = await crossAgentRequests({
      baseUrl: f.stack.apiUrl,
      owner: { agentId: owner?.agentId ?? "", tokenAddress },
      intruderKey: intruder?.apiKey ?? "",
      snapshot: f.options.snapshot as () => Promise<Record<string, string>>,
      headers: () => ({ "x-forwarded-for": nextIp(), origin: WEB }),
      seed: SEED,
    });
    // Every agent write route is covered (webhook subscriptions, dashboard writes, launch).
    expect(results.length).toBeGreaterThanOrEqual(12);
    expect(results.filter((r) => r.status !== 403 || r.changed.length > 0)).toEqual([]);
  }, 120_000);

  it("API2: a rotated or revoked key is refused at once by every API process", async () => {
    const api2 = await secondApi(f.env);
    await api2.start();
    try {
      const agent = (await admin("/v2/admin/agents", { name: "rotation" })).body.data;
      const whoami = async (base: string, key: string) =>
        (
          await fetch(`${base}/v2/agents/${agent?.agentId}/webhooks`, {
            headers: { authorization: `Bearer ${key}`, "x-forwarded-for": nextIp() },
          })
        ).status;
      expect(await whoami(api2.url, agent?.apiKey ?? "")).toBe(200);
      const rotated = (await admin(`/v2/admin/agents/${agent?.agentId}/keys/rotate`)).body.data;
      expect(await whoami(api2.url, agent?.apiKey ?? "")).toBe(401);
      expect(await whoami(api2.url, rotated?.apiKey ?? "")).toBe(200);
      expect((await admin(`/v2/admin/agents/${agent?.agentId}/keys/revoke`)).status).toBe(200);
      expect(await whoami(api2.url, rotated?.apiKey ?? "")).toBe(401);
      expect(await whoami(f.stack.apiUrl, rotated?.apiKey ?? "")).toBe(401);
    } finally {
      await api2.kill();
    }
  }, 120_000);
});
