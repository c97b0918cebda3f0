import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerError } from "../../../api/policy/policy.ts";
import { classify } from "../../../jobs/launch/errors.ts";
import { createStewardClient } from "../../../services/steward/client.ts";
import { POLICY_TYPES } from "../../../services/steward/protocol.ts";
import {
  stewardDeliveryHeaders,
  verifyStewardDelivery,
} from "../../../services/steward/webhooks.ts";
import { startLocalSteward } from "../../helpers/steward.ts";

// Answers recorded out of Steward's source (each fixture names the file and route it was read
// from): our client must read them as Steward means them, and the stand-in must answer in the
// same shapes. A change on either side fails here.

type Fixture = {
  request: { method: string; path: string; body?: unknown };
  response: { status: number; body: { ok: boolean; error?: string; data?: unknown } };
};
const fx = (name: string): Fixture =>
  JSON.parse(readFileSync(new URL(`./${name}.json`, import.meta.url), "utf8"));
const KEY = "stw_recorded_key_0123456789";

let server: Server;
let url = "";
let routes: Record<string, Fixture[]> = {};
const seen: { method: string; path: string; headers: IncomingHttpHeaders; body: unknown }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const key = `${req.method} ${req.url}`;
      seen.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: raw ? JSON.parse(raw) : undefined,
      });
      const queue = routes[key] ?? [];
      const f = queue.length > 1 ? queue.shift() : queue[0];
      res.writeHead(f?.response.status ?? 599, { "content-type": "application/json" });
      res.end(JSON.stringify(f?.response.body ?? { ok: false, error: `no fixture for ${key}` }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const replay = (r: Record<string, Fixture[]>) => {
  routes = r;
  seen.length = 0;
};
const client = (o: { approvalWaitMs?: number } = {}) =>
  createStewardClient({
    url,
    apiKey: KEY,
    tenantId: "launchpad",
    timeoutMs: 5_000,
    approvalPollMs: 10,
    ...o,
  });
const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );
const TX = {
  to: "0x5b38da6a701c568545dcfcb03fcb875f56beddc4" as const,
  value: "0",
  data: "0x01020304" as const,
  idempotencyKey: "create:1",
};

describe("our client reads Steward's recorded answers", () => {
  it("provisions find-or-create: GET by our id (404), then POST /agents under an Idempotency-Key", async () => {
    replay({
      "GET /agents/launchpad-agent-1": [fx("agent-not-found")],
      "POST /agents": [fx("agent-create")],
    });
    const w = await client().provisionWallet({ agentId: "launchpad-agent-1" });
    const agent = fx("agent-create").response.body.data as { id: string; walletAddress: string };
    expect(w).toEqual({
      walletId: agent.id,
      agentId: "launchpad-agent-1",
      address: agent.walletAddress,
    });
    const post = seen.find((s) => s.method === "POST");
    expect(post?.body).toEqual(fx("agent-create").request.body);
    expect(post?.headers).toMatchObject({
      "x-steward-key": KEY,
      "x-steward-tenant": "launchpad",
      "idempotency-key": "agent:launchpad-agent-1",
    });
  });

  it("signs with chainId 56, value and an Idempotency-Key scoped to the wallet", async () => {
    replay({ "POST /vault/agt_1/sign": [fx("sign-ok")] });
    const r = await client().sendTransaction("agt_1", TX);
    expect(r).toMatchObject({ ...(fx("sign-ok").response.body.data as object), outcome: "sent" });
    expect(seen[0]?.body).toEqual(fx("sign-ok").request.body);
    expect(seen[0]?.headers["idempotency-key"]).toBe("agt_1:create:1");
  });

  it("a 403 refusal is the API's policy_denied naming Steward's failed rule", async () => {
    replay({ "POST /vault/agt_1/sign": [fx("sign-refused")] });
    const e = signerError(await caught(client().sendTransaction("agt_1", TX)));
    expect(e).toMatchObject({ code: "policy_denied", reason: "steward_spending_limit" });
    expect((e as { details: unknown[] }).details).toEqual([
      { path: "spending-limit", message: "Exceeds per-transaction limit" },
    ]);
  });

  it("a 202 pending_approval is polled, never sent again, and resumes once Steward broadcast it", async () => {
    replay({
      "POST /vault/agt_1/sign": [fx("sign-pending")],
      "GET /vault/agt_1/transactions/8b3c4d5e-6f7a-4b2c-9d3e-4f5a6b7c8d9e": [fx("tx-broadcast")],
    });
    const r = await client({ approvalWaitMs: 5_000 }).sendTransaction("agt_1", TX);
    expect(r).toMatchObject({
      txHash: (fx("tx-broadcast").response.body.data as { txHash: string }).txHash,
      outcome: "sent",
    });
    expect(seen.filter((s) => s.method === "POST")).toHaveLength(1);
  });

  it("a pending approval past the wait fails the step as signer_pending_approval (policy_needs_manual in the API)", async () => {
    replay({ "POST /vault/agt_1/sign": [fx("sign-pending")] });
    const error = await caught(client().sendTransaction("agt_1", TX));
    expect(signerError(error)).toMatchObject({ code: "policy_needs_manual" });
    expect(classify(error, "identity").message).toContain("signer_pending_approval");
    expect(seen).toHaveLength(1);
  });

  it("a 202 outcome_unknown returns the hash Steward signed, without a second send", async () => {
    replay({ "POST /vault/agt_1/sign": [fx("sign-outcome-unknown")] });
    const r = await client().sendTransaction("agt_1", TX);
    expect(r).toMatchObject({
      txHash: (fx("sign-outcome-unknown").response.body.data as { txHash: string }).txHash,
      outcome: "unknown",
    });
    expect(seen).toHaveLength(1);
  });

  it("a 502 naming the chain's refusal is final: sent once, an order's 409, a launch's LAUNCHPAD_ERROR", async () => {
    replay({ "POST /vault/agt_1/sign": [fx("sign-insufficient-funds")] });
    const error = await caught(client().sendTransaction("agt_1", TX));
    expect(seen).toHaveLength(1);
    expect(signerError(error)).toMatchObject({ code: "conflict" });
    const e = classify(error, "createSent");
    expect(e).toMatchObject({ code: "LAUNCHPAD_ERROR" });
    expect(e.message).toContain("signer_chain_refused");
    // The same key again: Steward's 409 for a transaction recorded failed, the same step error.
    replay({ "POST /vault/agt_1/sign": [fx("sign-failed-repeat")] });
    const repeat = await caught(client().sendTransaction("agt_1", TX));
    expect(classify(repeat, "createSent").message).toContain(
      "3f2e1d0c-9b8a-4c7d-8e6f-5a4b3c2d1e0f",
    );
  });

  it("a 403 without results is Steward refusing our credentials: a launch error naming the signer, no key", async () => {
    replay({ "GET /agents/agt_x": [fx("forbidden")] });
    const error = await caught(client().getWallet("agt_x"));
    expect(signerError(error)).toMatchObject({ code: "upstream_error" });
    const e = classify(error, "wallet");
    expect(e).toMatchObject({ code: "ORCHESTRATOR_UNAVAIL" });
    expect(e.message).toContain("signer_auth_refused");
    expect(JSON.stringify({ m: e.message, d: (error as Error).message })).not.toContain(KEY);
  });

  it("reads sign-message and the policy rules as recorded", async () => {
    replay({
      "POST /vault/agt_1/sign-message": [fx("sign-message")],
      "PUT /agents/agt_1/policies": [fx("policies")],
    });
    expect(await client().signMessage("agt_1", "hello")).toEqual(
      fx("sign-message").response.body.data,
    );
    const rules = fx("policies").request.body as never;
    expect(await client().setPolicyRules("agt_1", rules)).toEqual(
      fx("policies").response.body.data,
    );
    expect(seen[1]?.body).toEqual(rules); // the bare array, as Steward takes it
  });
});

describe("the stand-in answers in the recorded shapes", () => {
  let s: Awaited<ReturnType<typeof startLocalSteward>>;
  beforeAll(async () => {
    s = await startLocalSteward();
  });
  afterAll(() => s.stop());
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${s.url}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        "x-steward-key": s.apiKey,
        "x-steward-tenant": s.tenantId,
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Fixture["response"]["body"] };
  };
  const keys = (o: unknown) => Object.keys(o as object).sort();

  it("agents, errors, sign-message and policy rules", async () => {
    const created = await call("POST", "/agents", fx("agent-create").request.body);
    expect(created.status).toBe(200);
    expect(keys(created.body.data)).toEqual(keys(fx("agent-create").response.body.data));
    const id = (created.body.data as { id: string }).id;
    expect(await call("GET", "/agents/launchpad-agent-1")).toEqual({
      status: 404,
      body: fx("agent-not-found").response.body,
    });
    expect(await call("GET", `/agents/${id}`, undefined, { "x-steward-key": "wrong" })).toEqual({
      status: 403,
      body: fx("forbidden").response.body,
    });
    const noKey = await call(
      "POST",
      `/vault/${id}/sign`,
      fx("sign-no-idempotency-key").request.body,
    );
    expect(noKey).toEqual({ status: 428, body: fx("sign-no-idempotency-key").response.body });
    const signed = await call("POST", `/vault/${id}/sign-message`, { message: "hello" });
    expect(keys(signed.body.data)).toEqual(keys(fx("sign-message").response.body.data));
    const rules = fx("policies");
    expect(await call("PUT", `/agents/${id}/policies`, rules.request.body)).toEqual({
      status: 200,
      body: rules.response.body,
    });
  });

  it("a call a person must approve is 202 pending_approval {txId, results[], status}", async () => {
    const { data } = (await call("POST", "/agents", { name: "held" })).body as {
      data: { id: string };
    };
    // Above the agent's auto-approve threshold: Steward holds it for a person.
    const hold = [
      { id: "hold", type: "auto-approve-threshold", enabled: true, config: { threshold: "0" } },
    ];
    expect((await call("PUT", `/agents/${data.id}/policies`, hold)).status).toBe(200);
    const r = await call(
      "POST",
      `/vault/${data.id}/sign`,
      {
        to: "0x00000000000000000000000000000000000000ff",
        value: "1",
        data: "0xdeadbeef",
        chainId: 56,
      },
      { "idempotency-key": "held-0001" },
    );
    const recorded = fx("sign-pending").response;
    expect(r.status).toBe(recorded.status);
    expect(r.body.error).toBe(recorded.body.error);
    const d = r.body.data as { txId: string; results: { type: string }[] };
    expect(keys(d)).toEqual(expect.arrayContaining(keys(recorded.body.data)));
    const recordedResult = (recorded.body.data as { results: object[] }).results[0];
    expect(keys(d.results[0])).toEqual(keys(recordedResult));
    expect(POLICY_TYPES).toContain(d.results[0]?.type);
    const tx = await call("GET", `/vault/${data.id}/transactions/${d.txId}`);
    expect(tx.body.data).toMatchObject({ id: d.txId, status: "pending" });
  });
});

describe("Steward's deliveries", () => {
  const d = JSON.parse(
    readFileSync(new URL("./delivery-policy-violation.json", import.meta.url), "utf8"),
  ) as {
    secret: string;
    receivedAt: number;
    headers: Record<string, string>;
    body: string;
  };
  const header = (h: Record<string, string>) => (n: string) => h[n];

  it("a recorded delivery verifies; a changed body, a stale one or another secret does not", () => {
    const ok = verifyStewardDelivery({
      secret: d.secret,
      body: d.body,
      header: header(d.headers),
      nowSeconds: d.receivedAt,
    });
    expect(ok).toEqual({
      ok: true,
      deliveryId: d.headers["x-steward-delivery-id"],
      eventType: "policy.violation",
    });
    expect(
      verifyStewardDelivery({
        secret: d.secret,
        body: `${d.body} `,
        header: header(d.headers),
        nowSeconds: d.receivedAt,
      }).ok,
    ).toBe(false);
    expect(
      verifyStewardDelivery({
        secret: d.secret,
        body: d.body,
        header: header(d.headers),
        nowSeconds: d.receivedAt + 400,
      }).ok,
    ).toBe(false);
    expect(
      verifyStewardDelivery({
        secret: `${d.secret}x`,
        body: d.body,
        header: header(d.headers),
        nowSeconds: d.receivedAt,
      }).ok,
    ).toBe(false);
  });

  it("the stand-in signs exactly as the recorded delivery was signed", () => {
    const mine = stewardDeliveryHeaders({
      secret: d.secret,
      body: d.body,
      deliveryId: d.headers["x-steward-delivery-id"] as string,
      eventType: d.headers["x-steward-event"] as string,
      sentAt: Number(d.headers["x-steward-sent-at"]),
    });
    expect(mine).toEqual(d.headers);
  });
});
