import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Address, getAbiItem, type Hash, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { identityRegistryDevnetAbi } from "../../abis/IdentityRegistryDevnet.ts";
import { safeL2Abi } from "../../abis/SafeL2.ts";
import { taxTokenAbi } from "../../abis/TaxToken.ts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { pruneIdempotencyKeys } from "../../jobs/launch/prune-idempotency.ts";
import { LAUNCH_LIMITS } from "../../jobs/limits.ts";
import { cleanEnv, ROOT, runCli, type Stack } from "../helpers/cli.ts";
import {
  ADMIN_TOKEN,
  type Agent,
  bearer,
  chainClient,
  createAgentCli,
  launch,
  launchBody,
  nextIp,
  readRecord,
  rolePid,
  stackSql,
} from "../helpers/launch.ts";
import { sharedStack } from "../helpers/shared-stack.ts";

// what: Agents, keys and the agent launch through the API on a real stack: auth codes, the per-key launch limit, image checks, 10 concurrent launches verified on-chain, the signer or four.meme API down, MCP (launch and sell pledge) over HTTP and stdio
// The shared stack (test/shared-stack.test.ts): every launch test uses its own agent.
let stack: Stack;
let env: Record<string, string>;
let sample: string;
let standIn: string;
let sql: ReturnType<typeof stackSql>;

// An image host apart from the launchpad stand-in (which a test stops), trusted by explicit
// local-mode configuration like the stand-in's own origin (the shared stack serves it).
let ownImage: string;

beforeAll(async () => {
  ({ stack, env, ownImage } = await sharedStack());
  standIn = `http://127.0.0.1:${env.FOUR_MEME_API_PORT}`;
  const info = await runCli(["devnet", "info", "--json"], env);
  sample = JSON.parse(info.stdout).sampleImageUrl;
  sql = stackSql(env.LAUNCHPAD_DATA_DIR as string);
}, 240_000);

afterAll(async () => {
  await sql?.end({ timeout: 2 });
});

const launchTokenOf = (r: { body: Record<string, any> }) => r.body.data?.tokenAddress as Address;

describe("agents and keys", () => {
  it("checks the key before the body, and every auth failure has its code", async () => {
    const a = await createAgentCli(env, "auth-agent");
    expect(a.apiKey).toMatch(/^agk_[A-Za-z0-9_-]{43}$/);
    expect(await launch(stack.apiUrl, "not json")).toMatchObject({
      status: 401,
      body: { ok: false, error: "AGENT_AUTH_MISSING" },
    });
    expect(await launch(stack.apiUrl, {}, { "x-agent-api-key": "agk_unknown" })).toMatchObject({
      status: 401,
      body: { error: "AGENT_AUTH_INVALID" },
    });
    const bad = await launch(stack.apiUrl, { agentId: a.agentId, ticker: "no spaces!" }, bearer(a));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("INVALID_REQUEST");
    expect(bad.body.details.map((d: { path: string }) => d.path)).toEqual(
      expect.arrayContaining(["name", "ticker", "description", "imageUrl", "chainId"]),
    );
    const other = await createAgentCli(env, "other-agent");
    expect(await launch(stack.apiUrl, launchBody(other, sample), bearer(a))).toMatchObject({
      status: 403,
      body: { error: "AGENT_ID_MISMATCH" },
    });

    // A key without the launch scope.
    await sql`update app.agent_keys set scopes = '{read:*}' where agent_id = ${other.agentId}`;
    expect(await launch(stack.apiUrl, launchBody(other, sample), bearer(other))).toMatchObject({
      status: 403,
      body: { error: "AGENT_SCOPE_FORBIDDEN" },
    });

    // Rotation: the old key stops working at once; revocation ends the new one.
    const rotated = await runCli(["keys", "rotate", "--agent", a.agentId, "--json"], env);
    const fresh = JSON.parse(rotated.stdout.trim().split("\n").at(-1) as string) as Agent;
    expect(fresh.apiKey).not.toBe(a.apiKey);
    expect((await launch(stack.apiUrl, {}, bearer(a))).body.error).toBe("AGENT_AUTH_INVALID");
    expect((await launch(stack.apiUrl, {}, bearer(fresh))).body.error).toBe("INVALID_REQUEST");
    expect((await runCli(["keys", "revoke", "--agent", a.agentId], env)).stdout).toContain(
      "revoked 1 key",
    );
    expect((await launch(stack.apiUrl, {}, bearer(fresh))).body.error).toBe("AGENT_AUTH_INVALID");

    // Operator HTTP: admin token required; an expired key is invalid.
    const admin = (path: string, body: unknown, token = ADMIN_TOKEN) =>
      fetch(`${stack.apiUrl}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "x-forwarded-for": nextIp(),
        },
        body: JSON.stringify(body),
      });
    expect(
      (await admin("/v2/admin/agents", { name: "x" }, "wrong-token-wrong-token-wrong-token"))
        .status,
    ).toBe(401);
    const created = await admin("/v2/admin/agents", {
      name: "expired",
      expiresAt: "2020-01-01T00:00:00Z",
    });
    expect(created.status).toBe(201);
    const expired = ((await created.json()) as { data: Agent }).data;
    expect((await launch(stack.apiUrl, {}, bearer(expired))).body.error).toBe("AGENT_AUTH_INVALID");
    const rot = await admin(`/v2/admin/agents/${expired.agentId}/keys/rotate`, {});
    const live = ((await rot.json()) as { data: Agent }).data;
    expect((await launch(stack.apiUrl, {}, bearer(live))).body.error).toBe("INVALID_REQUEST");
  });

  it("allows 10 launch requests per minute per key", async () => {
    const a = await createAgentCli(env, "rate-agent");
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await launch(stack.apiUrl, {}, bearer(a))).status);
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

describe("image checks", () => {
  it("refuses a non-image, a 404, an http URL and a private address", async () => {
    const a = await createAgentCli(env, "image-agent");
    const cases: [string, string][] = [
      [`${standIn}/static/not-an-image.txt`, "IMAGE_NOT_IMAGE"],
      [`${standIn}/static/missing.png`, "IMAGE_NOT_200"],
      ["http://example.com/agent.png", "IMAGE_URL_NOT_HTTPS"],
      ["https://10.1.2.3/agent.png", "IMAGE_URL_PRIVATE"],
      ["https://[::1]/agent.png", "IMAGE_URL_PRIVATE"],
      ["https://localhost/agent.png", "IMAGE_URL_PRIVATE"],
    ];
    for (const [url, code] of cases) {
      const r = await launch(stack.apiUrl, launchBody(a, url), bearer(a));
      expect({ url, status: r.status, error: r.body.error, code: r.body.code }).toEqual({
        url,
        status: 400,
        error: "INVALID_REQUEST",
        code,
      });
    }
    const [row] =
      await sql`select count(*)::int as n from app.launch_sagas where agent_id = ${a.agentId}`;
    expect(row?.n).toBe(0);
  });
});

describe("launch", () => {
  it("10 concurrent launches of one agent: one 200, one token, and everything verified on-chain", async () => {
    const a = await createAgentCli(env, "race-agent");
    const results = await Promise.all(
      Array.from({ length: 10 }, () => launch(stack.apiUrl, launchBody(a, sample), bearer(a))),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(
      results
        .filter((r) => r.status === 409)
        .every((r) => r.body.error === "AGENT_ALREADY_LAUNCHED"),
    ).toBe(true);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    const d = ok[0]?.body.data;
    expect(d).toEqual({
      agentId: a.agentId,
      tokenAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      eip8004TokenId: expect.stringMatching(/^\d+$/),
      treasuryAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      walletAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      agentPageUrl: `${env.WEB_URL}/agent/${d.tokenAddress}`,
      launchpadUrl: `https://four.meme/token/${d.tokenAddress}`,
      // Anti-sniper unless asked off; no first buy unless asked for.
      antiSniper: true,
      firstBuy: null,
    });

    const client = chainClient(env);
    const record = readRecord(env.LAUNCHPAD_DATA_DIR as string);
    const creates = await client.getLogs({
      address: record.contracts.tokenManager2,
      event: getAbiItem({ abi: tokenManager2Abi, name: "TokenCreate" }),
      fromBlock: BigInt(record.deployedAtBlock),
    });
    const mine = creates.filter((l) => l.args.creator?.toLowerCase() === d.walletAddress);
    expect(mine).toHaveLength(1);
    const receipt = await client.getTransactionReceipt({ hash: d.txHash });
    const [ev] = parseEventLogs({
      abi: tokenManager2Abi,
      logs: receipt.logs,
      eventName: "TokenCreate",
    });
    expect(ev?.args.token.toLowerCase()).toBe(d.tokenAddress);
    expect(ev?.args.name).toBe("Test Agent");
    // The ServiceRegistry entry follows createToken (a later block): the indexer replays the
    // token's logs from its creation block and sees the mint.
    let indexed: { registered_block: string; created_block: string | null } | undefined;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      [indexed] = await sql<{ registered_block: string; created_block: string | null }[]>`
        select registered_block::text, created_block::text from onchain.token where address = ${d.tokenAddress}`;
      if (indexed?.created_block) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(indexed?.created_block).toBe(String(receipt.blockNumber));
    expect(BigInt(indexed?.registered_block ?? -1)).toBeGreaterThan(receipt.blockNumber);
    // The preview budgets the entry's gas before the token exists: the budget must hold.
    const [saga] = await sql<{ register: Hash }[]>`
      select register_tx->>'hash' as register from app.launch_sagas where agent_id = ${d.agentId}`;
    const entry = await client.getTransactionReceipt({ hash: saga?.register as Hash });
    expect(entry.gasUsed).toBeLessThanOrEqual(LAUNCH_LIMITS.registerGasUnits);

    const token = d.tokenAddress as Address;
    const read = <T>(
      functionName: string,
      abi: unknown = taxTokenAbi,
      address: Address = token,
      args: unknown[] = [],
    ) =>
      client.readContract({
        address,
        abi: abi as typeof taxTokenAbi,
        functionName: functionName as never,
        args: args as never,
      }) as Promise<T>;
    // The default terms (feeRate 3 %, recipientRate 100 to the treasury Safe) on four.meme's
    // type-5 token: one rate in basis points, charged only once graduation sets NORMAL mode.
    expect(await read<bigint>("feeRate")).toBe(300n);
    expect(await read<bigint>("sellFeeRate")).toBe(300n);
    expect((await read<string>("founder")).toLowerCase()).toBe(d.treasuryAddress);
    expect(await read<bigint>("rateFounder")).toBe(100n);
    expect(await read<bigint>("rateBurn")).toBe(0n);
    expect(await read<bigint>("minShare")).toBe(100_000n * 10n ** 18n);
    expect(await read<bigint>("_mode")).toBe(2n);
    const registry = record.contracts.identityRegistry as Address;
    const id = BigInt(d.eip8004TokenId);
    expect(
      (await read<string>("ownerOf", identityRegistryDevnetAbi, registry, [id])).toLowerCase(),
    ).toBe(d.walletAddress);
    const meta = await read<`0x${string}`>("getMetadata", identityRegistryDevnetAbi, registry, [
      id,
      "treasury",
    ]);
    expect(meta.toLowerCase()).toBe(d.treasuryAddress);
    const wallet = await read<`0x${string}`>("getMetadata", identityRegistryDevnetAbi, registry, [
      id,
      "agentWallet",
    ]);
    expect(wallet.toLowerCase()).toBe(d.walletAddress);
    const uri = await read<string>("tokenURI", identityRegistryDevnetAbi, registry, [id]);
    const file = (await (await fetch(uri)).json()) as { name: string; treasury: string };
    expect(file).toMatchObject({ name: "Test Agent", treasury: d.treasuryAddress });
    const owners = (await read<string[]>("getOwners", safeL2Abi, d.treasuryAddress)).map((o) =>
      o.toLowerCase(),
    );
    expect(owners).toContain(d.walletAddress);
    expect(await read<bigint>("getThreshold", safeL2Abi, d.treasuryAddress)).toBe(1n);

    // The indexer picks the token up: the agent lists as active.
    const deadline = Date.now() + 30_000;
    let listed: { status?: string } | undefined;
    while (Date.now() < deadline) {
      const res = await fetch(`${stack.apiUrl}/v2/agents/${token}`, {
        headers: { "x-forwarded-for": nextIp() },
      });
      if (res.status === 200) listed = ((await res.json()) as { data: { status: string } }).data;
      if (listed?.status === "active") break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(listed?.status).toBe("active");
    // The signer reported each of the launch's two transactions (identity, createToken) as
    // policy.applied through its signed webhook, once each however often the saga retried; the
    // login message is no transaction and passes no policy (as at Steward). Steward delivers
    // from its outbox after answering, so the last delivery may still be on its way.
    let hooks: { n: number } | undefined;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      [hooks] = await sql<{ n: number }[]>`
        select count(*)::int as n from app.webhook_inbox where event_type = 'policy.applied'
        and payload->>'agentId' = ${a.agentId}`;
      if ((hooks?.n ?? 0) >= 2) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(hooks?.n).toBe(2);
  }, 120_000);

  it("signer down: 503 and nothing launched", async () => {
    const a = await createAgentCli(env, "signer-down");
    const steward = rolePid(stack, "steward");
    process.kill(steward, "SIGSTOP");
    try {
      const r = await launch(stack.apiUrl, launchBody(a, sample), bearer(a));
      expect(r).toMatchObject({ status: 503, body: { ok: false, error: "ORCHESTRATOR_UNAVAIL" } });
    } finally {
      process.kill(steward, "SIGCONT");
    }
    const [agent] =
      await sql`select status, token_address from app.agents where agent_id = ${a.agentId}`;
    expect(agent).toEqual({ status: "failed", token_address: null });
  }, 60_000);

  it("four.meme API failing: 502, and a retry with the same Idempotency-Key completes", async () => {
    const a = await createAgentCli(env, "launchpad-down");
    const api = rolePid(stack, "four-meme");
    process.kill(api, "SIGSTOP");
    let first: Awaited<ReturnType<typeof launch>>;
    try {
      first = await launch(stack.apiUrl, launchBody(a, ownImage), {
        ...bearer(a),
        "idempotency-key": "k1",
      });
      expect(first).toMatchObject({ status: 502, body: { ok: false, error: "LAUNCHPAD_ERROR" } });
    } finally {
      process.kill(api, "SIGCONT");
    }
    // A 502 is transient: the client's retry with the same key launches, it does not replay.
    const retry = await launch(stack.apiUrl, launchBody(a, ownImage), {
      ...bearer(a),
      "idempotency-key": "k1",
    });
    expect(retry.status).toBe(200);
    // Once final, the answer is replayed for that key.
    const again = await launch(stack.apiUrl, launchBody(a, ownImage), {
      ...bearer(a),
      "idempotency-key": "k1",
    });
    expect(again).toEqual(retry);
    // The retry reused the first attempt's wallet and identity: one NFT for the wallet.
    const client = chainClient(env);
    const record = readRecord(env.LAUNCHPAD_DATA_DIR as string);
    const regs = await client.getLogs({
      address: record.contracts.identityRegistry as Address,
      event: getAbiItem({ abi: identityRegistryDevnetAbi, name: "Registered" }),
      args: { owner: retry.body.data.walletAddress },
      fromBlock: BigInt(record.deployedAtBlock),
    });
    expect(regs).toHaveLength(1);
    expect(launchTokenOf(retry)).toMatch(/^0x[0-9a-f]{40}$/);
  }, 90_000);
});

describe("launch retries", () => {
  it("a retry of a key whose first try failed before it made a saga launches (it waited for none)", async () => {
    const a = await createAgentCli(env, "no-saga-retry");
    // What a first try leaves when the database restarts between taking the key and making the
    // saga (CI's chaos run saw it): the key taken, no answer stored, no saga.
    await sql`insert into app.launch_idempotency (agent_id, idem_key) values (${a.agentId}, 'k-lost')`;
    const retry = await launch(stack.apiUrl, launchBody(a, ownImage), {
      ...bearer(a),
      "idempotency-key": "k-lost",
    });
    expect(retry.status).toBe(200);
    expect(launchTokenOf(retry)).toMatch(/^0x[0-9a-f]{40}$/);

    // A day later the worker's hourly job (its schedule: test/events/stack.suite.ts) forgets the
    // key; a retry with it is a new request, and the agent's one launch answers it 409, never a
    // second token.
    await sql`update app.launch_idempotency set created_at = now() - interval '25 hours'
      where agent_id = ${a.agentId}`;
    expect(await pruneIdempotencyKeys(sql, 24)).toBeGreaterThanOrEqual(1);
    const late = await launch(stack.apiUrl, launchBody(a, ownImage), {
      ...bearer(a),
      "idempotency-key": "k-lost",
    });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe("AGENT_ALREADY_LAUNCHED");
  }, 90_000);
});

describe("MCP", () => {
  it("launch_agent, the sell pledge's tools and service://AGENT.md over Streamable HTTP and stdio, with the REST results", async () => {
    const a = await createAgentCli(env, "mcp-agent");
    const http = new Client({ name: "test", version: "1.0.0" });
    await http.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.apiUrl}/mcp`), {
        requestInit: { headers: { ...bearer(a), "x-forwarded-for": nextIp() } },
      }),
    );
    const tools = await http.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("launch_agent");
    const spec = await http.readResource({ uri: "service://AGENT.md" });
    const text = (r: { contents: unknown[] }) => String((r.contents[0] as { text?: string }).text);
    expect(text(spec)).toContain("# Launchpad agent integration spec");
    const other = await createAgentCli(env, "mcp-other");
    const bad = await http.callTool({ name: "launch_agent", arguments: launchBody(other, sample) });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({
      status: 403,
      ok: false,
      error: "AGENT_ID_MISMATCH",
    });
    const ok = await http.callTool({ name: "launch_agent", arguments: launchBody(a, sample) });
    expect(ok.isError).toBe(false);
    expect(ok.structuredContent).toMatchObject({
      status: 200,
      ok: true,
      data: { agentId: a.agentId },
    });
    // Having launched through MCP, the agent pledges through it: the REST route's answers.
    const token = (ok.structuredContent as { data: { tokenAddress: string } }).data.tokenAddress;
    const set = await http.callTool({
      name: "set_sell_pledge",
      arguments: { agent: token, lockDays: 30, maxDailySellPercent: "2.5" },
    });
    expect(set.isError, JSON.stringify(set.structuredContent)).toBe(false);
    expect(set.structuredContent).toMatchObject({
      status: 200,
      data: {
        inForce: {
          lockDays: 30,
          maxDailySellPercent: "2.5",
          loosenDelayDays: 7,
          createdBy: { kind: "agent", id: a.agentId },
        },
        pending: null,
      },
    });
    const foreign = await http.callTool({
      name: "set_sell_pledge",
      arguments: { agent: other.agentId, lockDays: 0, maxDailySellPercent: "100" },
    });
    expect(foreign.isError).toBe(true);
    expect(foreign.structuredContent).toMatchObject({ status: 403, error: "not_authorized" });
    await http.close();

    const stdio = new Client({ name: "test", version: "1.0.0" });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [`${ROOT}/bin/launchpad.js`, "mcp", "--api", stack.apiUrl],
        cwd: ROOT,
        env: cleanEnv({ ...env, AGENT_API_KEY: a.apiKey }) as Record<string, string>,
      }),
    );
    const again = await stdio.callTool({ name: "launch_agent", arguments: launchBody(a, sample) });
    expect(again.structuredContent).toMatchObject({ status: 409, error: "AGENT_ALREADY_LAUNCHED" });
    // A looser pledge waits for the delay of the one in force; reading it is the REST read.
    const looser = await stdio.callTool({
      name: "set_sell_pledge",
      arguments: { agent: a.agentId, lockDays: 0, maxDailySellPercent: "2.5" },
    });
    expect(looser.structuredContent).toMatchObject({
      status: 200,
      data: { inForce: { lockDays: 30 }, pending: { lockDays: 0 } },
    });
    const read = await stdio.callTool({ name: "get_sell_pledge", arguments: { agent: token } });
    const rest = await fetch(`${stack.apiUrl}/v2/agents/${token}/pledge`, {
      headers: { "x-forwarded-for": nextIp() },
    });
    expect((read.structuredContent as { data: unknown }).data).toEqual(
      ((await rest.json()) as { data: unknown }).data,
    );
    const spec2 = await stdio.readResource({ uri: "service://AGENT.md" });
    expect(text(spec2)).toBe(text(spec));
    await stdio.close();
  }, 90_000);
});
