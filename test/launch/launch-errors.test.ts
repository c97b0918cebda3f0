import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, type TestBody, testApp } from "../../api/testing/app.ts";
import { requestAs } from "../../api/testing/client.ts";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { samplePng } from "../../devnet/stand-ins/four-meme/sample-image.ts";
import type { SagaContext } from "../../jobs/launch/context.ts";
import { runSaga } from "../../jobs/launch/saga.ts";
import { createAgent } from "../../lib/agents/keys.ts";
import { createStewardClient } from "../../services/steward/client.ts";
import { serveWorld, type WorldServer } from "../helpers/world/serve.ts";

// what: A failed agent launch tells its caller fixed words per code and the attempt's launchId, never the cause (a signer answering with its database's error, an unreachable internal URL): the launch's own answer, a retry that reads the running launch's result, and MCP's launch_agent alike; the log and GET /v2/admin/launches/{launchId} (operator token only) hold the cause

const ADMIN = "operator-token-0123456789abcdef0123456789";
const DB_ERROR = 'password authentication failed for user "launchpad_rw"';
/** Where one agent's saga finds its signer: a failing one, or an internal address nobody answers. */
const UNREACHABLE = "http://127.0.0.1:1/steward-internal/v1?tenant=ops";
const ORCHESTRATOR_WORDS =
  "the launch failed at the signer, the chain or the launch service's own infrastructure; retry after 1 s, 2 s, 4 s with the same Idempotency-Key, then quote launch";

let db: TestDatabase;
let t: TestApp;
/** The agent's image, at a public name of the world (npm test), fetched as production does. */
let image: WorldServer;
let imageOrigin: string;
/** A signer that holds every request until released, then answers 500 with its database's error. */
let signer: Server;
let signerUrl: string;
let release: () => void;
const released = new Promise<void>((r) => {
  release = r;
});
const signerFor = new Map<string, string>();
const sagas: Promise<void>[] = [];
const logged: TestBody[] = [];

const listen = (s: Server) =>
  new Promise<string>((r) =>
    s.listen(0, "127.0.0.1", () => r(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)),
  );

beforeAll(async () => {
  db = await startTestDatabase();
  image = await serveWorld("images.example.net", (_, res) => {
    res.writeHead(200, { "content-type": "image/png" }).end(samplePng());
  });
  imageOrigin = image.origin;
  signer = createServer(async (_, res) => {
    await released;
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: false, error: DB_ERROR }));
  });
  signerUrl = await listen(signer);
  const log = pino({ level: "info" }, { write: (l: string) => void logged.push(JSON.parse(l)) });
  // The saga the worker would run for the job the API sends: the real one, reaching its signer.
  const context = (stewardUrl: string) =>
    ({
      sql: db.sql,
      log,
      steward: createStewardClient({
        url: stewardUrl,
        apiKey: "steward-key",
        tenantId: "tenant",
        timeoutMs: 30_000,
        approvalWaitMs: 0,
        approvalPollMs: 100,
      }),
      killPoints: [],
      dataDir: "",
    }) as unknown as SagaContext;
  t = await testApp(db, {}, "test", {
    adminToken: ADMIN,
    launch: {
      launch: {
        sql: db.sql,
        enqueue: async (agentId) => {
          sagas.push(runSaga(context(signerFor.get(agentId) as string), agentId));
        },
        trustedImageOrigins: [],
        firstBuyMaxWei: 0n,
        deadlineMs: 3_000,
        webUrl: "http://localhost:3000",
        launchpadTokenUrl: "http://localhost:3000/token/{address}",
        perKeyPerMinute: 0,
      },
    },
  });
}, 60_000);

afterAll(async () => {
  release();
  await Promise.allSettled(sagas);
  signer?.closeAllConnections();
  await Promise.all([new Promise((r) => signer?.close(r)), image?.close(), db?.stop()]);
});

const body = (agentId: string) => ({
  agentId,
  name: "Failing Agent",
  ticker: "FAIL",
  description: "An agent whose launch fails in a test.",
  imageUrl: `${imageOrigin}/agent.png`,
  chainId: 56,
});

async function launch(a: { agentId: string; apiKey: string }, idempotencyKey: string) {
  const res = await requestAs(t.app, "/v2/agents/launch", {
    init: {
      method: "POST",
      headers: {
        authorization: `Bearer ${a.apiKey}`,
        "content-type": "application/json",
        "idempotency-key": idempotencyKey,
      },
      body: JSON.stringify(body(a.agentId)),
    },
  });
  const json = (await res.json()) as TestBody;
  expect(t.check("/v2/agents/launch", res.status, json, "post")).toEqual([]);
  return { status: res.status, body: json };
}

async function operatorView(launchId: string, token = ADMIN) {
  const res = await requestAs(t.app, `/v2/admin/launches/${launchId}`, {
    init: { headers: { authorization: `Bearer ${token}` } },
  });
  const json = (await res.json()) as TestBody;
  expect(t.check("/v2/admin/launches/{launchId}", res.status, json)).toEqual([]);
  return { status: res.status, body: json };
}

/** Nothing of the cause: no URL or host, no database user, no upstream text, no stack. */
function expectNoCause(answer: unknown) {
  const text = JSON.stringify(answer);
  for (const leak of [
    /https?:\/\//,
    /127\.0\.0\.1/,
    /launchpad_rw/,
    /password/,
    /steward/,
    /signer_/,
    /\bat .*:\d+:\d+/,
  ]) {
    expect(text).not.toMatch(leak);
  }
}

describe("a failed agent launch", () => {
  it("answers fixed words and its launchId, the first request and the retry that reads its result; the operator sees the cause", async () => {
    const a = await createAgent(db.sql, { name: "signer-db-down" });
    signerFor.set(a.agentId, signerUrl);
    // Still running at the deadline: the answer names the attempt already.
    const first = await launch(a, "k1");
    expect(first.status).toBe(503);
    const launchId = first.body.launchId as string;
    expect(launchId).toMatch(/^[0-9a-f-]{36}$/);
    // The retry with the same key reads the running launch's result (no second attempt).
    const retry = launch(a, "k1");
    setTimeout(release, 200);
    const failed = await retry;
    expect(failed).toEqual({
      status: 503,
      body: {
        ok: false,
        error: "ORCHESTRATOR_UNAVAIL",
        detail: `${ORCHESTRATOR_WORDS} ${launchId} to the operator`,
        launchId,
      },
    });
    expectNoCause(failed.body);

    // The cause is the operator's, by the id the caller quotes, and in the worker's log.
    const op = await operatorView(launchId);
    expect(op.status).toBe(200);
    expect(op.body.data).toMatchObject({
      launchId,
      kind: "agent",
      status: "failed",
      agentId: a.agentId,
      attempt: 1,
      step: "wallet",
      code: "ORCHESTRATOR_UNAVAIL",
    });
    expect(op.body.data.cause).toContain(DB_ERROR.replaceAll('"', '\\"'));
    expect((await operatorView(launchId, "agk_not-the-operator")).status).toBe(401);
    const line = logged.find((l) => l.launchId === launchId && l.msg === "launch failed");
    expect(JSON.stringify(line?.err)).toContain("password authentication failed");
  });

  it("answers MCP's launch_agent the same way; a new attempt has a new id, and the earlier one's cause stays with the operator", async () => {
    const b = await createAgent(db.sql, { name: "signer-unreachable" });
    signerFor.set(b.agentId, UNREACHABLE);
    const mcp = new Client({ name: "test", version: "1.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
        fetch: async (url, init) => requestAs(t.app, String(url), { init }),
        requestInit: { headers: { authorization: `Bearer ${b.apiKey}` } },
      }),
    );
    const call = async () => {
      const r = await mcp.callTool({ name: "launch_agent", arguments: body(b.agentId) });
      expect(r.isError).toBe(true);
      return r.structuredContent as TestBody;
    };
    const first = await call();
    const launchId = first.launchId as string;
    expect(first).toEqual({
      status: 503,
      ok: false,
      error: "ORCHESTRATOR_UNAVAIL",
      detail: `${ORCHESTRATOR_WORDS} ${launchId} to the operator`,
      launchId,
    });
    expectNoCause(first);
    const second = await call();
    expect(second.launchId).not.toBe(launchId);
    await mcp.close();

    for (const [id, attempt] of [
      [launchId, 1],
      [second.launchId as string, 2],
    ] as const) {
      const op = await operatorView(id);
      expect(op.body.data).toMatchObject({ kind: "agent", status: "failed", attempt });
      expect(op.body.data.cause).toContain("127.0.0.1:1/steward-internal");
    }
    expect((await operatorView("00000000-0000-4000-8000-000000000000")).status).toBe(404);
    // The token before the id: a guesser learns nothing of what exists.
    expect((await operatorView("not-an-id", "agk_not-the-operator")).status).toBe(401);
    expect((await operatorView("not-an-id")).status).toBe(400);
  });
});
