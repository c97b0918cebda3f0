import { type Address, createWalletClient, getAbiItem, http, parseEther } from "viem";
import { serviceRegistryAbi } from "../../../abis/ServiceRegistry.ts";
import { tokenManager2Abi } from "../../../abis/TokenManager2.ts";
import { devnetAccounts } from "../../../devnet/accounts.ts";
import { DEVNET_MNEMONIC } from "../../../devnet/anvil.ts";
import { readDeploymentRecord } from "../../../devnet/record.ts";
import { buyCall } from "../../../devnet/storyline/calls.ts";
import { isolatedEnv, runCli, type Stack, startStack, waitFor } from "../cli.ts";
import { ADMIN_TOKEN, chainClient, launchBody, launchEnv, rolePid, stackSql } from "../launch.ts";
import { checkIndex } from "../scenario-check.ts";
import { call, type LoadStats, newStats, webhook } from "./load.ts";
import { act, type ChaosAction, SUPERVISED_ROLES, secondApi } from "./roles.ts";

export type ChaosOptions = {
  /** How long the load runs while roles are killed. */
  loadMs: number;
  /** Agents that launch during the run. */
  agents: number;
  /** Mean pause between two chaos actions. */
  actionEveryMs: number;
  seed: number;
  log: (line: string) => void;
};

export type ChaosReport = {
  actions: string[];
  stats: LoadStats;
  launches: { accepted: number; agents: number; tokensOnChain: number; registered: bigint };
  webhooks: { accepted: number; rows: number; duplicates: number; missing: string[] };
  indexMismatches: string[];
  sagas: { agent: string; status: string; n: number }[];
  rolesBack: string[];
  problems: string[];
};

/** Upstream timeout of the chaos stack; the RPC pause is longer than it. */
const UPSTREAM_TIMEOUT_MS = 1_500;
/** How long Postgres stays down when chaos restarts it (after its fast shutdown). */
const POSTGRES_DOWN_MS = 3_000;
/** Time everything gets to settle once the load and the kills stop. */
const SETTLE_MS = 180_000;

/**
 * The whole stack under load (launches, signed webhooks, reads, on-chain trades) while roles are
 * SIGKILLed at random (worker, indexer, stand-ins, a second API process) and the RPC is paused
 * past the upstream timeout. Then: every accepted launch is on chain exactly once, every
 * accepted webhook is in agent_events exactly once, the index equals the chain, no unexpected
 * 5xx, every role is back. Prints what it did and found.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  let rng = o.seed >>> 0 || 1;
  const random = () => {
    rng = (rng * 1_103_515_245 + 12_345) >>> 0;
    return rng / 2 ** 32;
  };
  const env = launchEnv(await isolatedEnv(), {
    LAUNCHPAD_TEST_MAX_RESTARTS: "1000",
    UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
    LOG_LEVEL: "warn",
  });
  const dataDir = env.LAUNCHPAD_DATA_DIR as string;
  let stack: Stack | undefined;
  let api2: Awaited<ReturnType<typeof secondApi>> | undefined;
  // The Postgres chaos started again: the supervisor no longer owns it, so it is stopped here.
  let restartedPg: { stop: () => Promise<void> } | undefined;
  const sql = () => stackSql(dataDir);
  try {
    stack = await startStack(env);
    api2 = await secondApi(env);
    await api2.start();
    const s = stack;
    const a2 = api2;
    const apis = [s.apiUrl, a2.url];
    const info = JSON.parse((await runCli(["devnet", "info", "--json"], env)).stdout) as {
      sampleImageUrl: string;
      webhookSecrets: { codeHost: string };
    };
    const stats = newStats();
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    const agents: { agentId: string; apiKey: string }[] = [];
    for (let i = 0; i < o.agents; i++) {
      const r = await call(apis, stats, "setup", "/v2/admin/agents", {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ name: `chaos-${i}` }),
      });
      const data = r?.body.data as { agentId: string; apiKey: string } | undefined;
      if (r?.status !== 201 || !data)
        throw new Error(`agent creation failed: ${JSON.stringify(r)}`);
      agents.push(data);
    }
    o.log(`chaos: data dir ${dataDir}`);
    o.log(`chaos: stack up, ${agents.length} agents, two API processes, load for ${o.loadMs} ms`);

    const until = Date.now() + o.loadMs;
    // The load runs for loadMs, and on until every kind of action has happened once (a slow
    // machine must not end a short run before Postgres was restarted or the RPC paused).
    let firstRoundDone = false;
    const loading = () => Date.now() < until || !firstRoundDone;
    const actions: string[] = [];
    const launched = new Map<string, string>(); // agentId -> token address
    const webhooksAccepted = new Set<string>();

    const launchLoop = async (a: { agentId: string; apiKey: string }, i: number) => {
      const body = launchBody(a, info.sampleImageUrl, { ticker: `CH${i}`, name: `Chaos ${i}` });
      for (let attempt = 0; !launched.has(a.agentId); attempt++) {
        if (!loading() && Date.now() > until + SETTLE_MS) return;
        const r = await call(
          apis,
          stats,
          "launch",
          "/v2/agents/launch",
          {
            method: "POST",
            headers: {
              authorization: `Bearer ${a.apiKey}`,
              "content-type": "application/json",
              "idempotency-key": `chaos-${a.agentId}`,
            },
            body: JSON.stringify(body),
          },
          150_000,
        );
        const data = r?.body.data as { tokenAddress?: string } | undefined;
        if (r?.status === 200 && data?.tokenAddress) launched.set(a.agentId, data.tokenAddress);
        else if (
          r &&
          r.status < 500 &&
          r.status !== 409 &&
          r.status !== 429 &&
          // The sample image is served by the four-meme stand-in, one of the roles killed.
          r.body.code !== "IMAGE_UNREACHABLE"
        )
          throw new Error(`launch refused: ${r.status} ${JSON.stringify(r.body)}`);
        else
          await new Promise((r) =>
            setTimeout(r, Math.min(8_000, 1_000 * 2 ** Math.min(attempt, 3))),
          );
      }
    };
    let webhookSeq = 0;
    const webhookLoop = async () => {
      while (loading()) {
        const a = agents[Math.floor(random() * agents.length)] as { agentId: string };
        const id = `chaos-${o.seed}-${webhookSeq++}`;
        // A sender retries until it gets a 2xx; a tenth are sent twice on purpose.
        for (let sent = 0; sent < (webhookSeq % 10 === 0 ? 2 : 1); ) {
          const r = await call(
            apis,
            stats,
            "webhook",
            "/v2/webhooks/code-host",
            webhook(info.webhookSecrets.codeHost, a.agentId, id, webhookSeq),
          );
          if (r && r.status < 300) {
            webhooksAccepted.add(id);
            sent++;
          } else if (r && r.status < 500 && r.status !== 429) {
            throw new Error(`webhook refused: ${r.status} ${JSON.stringify(r.body)}`);
          } else await new Promise((r) => setTimeout(r, 500));
        }
      }
    };
    const readLoop = async () => {
      while (loading()) {
        const tokens = [...launched.values()];
        const t = tokens[Math.floor(random() * tokens.length)];
        const paths = ["/health", "/v2/agents", "/tokens", "/v2/launches", "/v2/indexer/status"];
        if (t) paths.push(`/v2/agents/${t}`, `/tokens/${t}/trades`, `/v2/agents/${t}/events`);
        await call(apis, stats, "read", paths[Math.floor(random() * paths.length)] as string);
      }
    };
    const record = readDeploymentRecord(dataDir);
    if (!record) throw new Error("no deployment record");
    const rpc = `http://127.0.0.1:${env.DEVNET_PORT}`;
    const trader = devnetAccounts(DEVNET_MNEMONIC).external[1];
    if (!trader) throw new Error("no external account");
    const wallet = createWalletClient({
      account: trader,
      transport: http(rpc, { timeout: 10_000, retryCount: 0 }),
    });
    const tradeLoop = async () => {
      while (loading()) {
        const tokens = [...launched.values()];
        const t = tokens[Math.floor(random() * tokens.length)];
        if (!t) {
          await new Promise((r) => setTimeout(r, 1_000));
          continue;
        }
        const c = buyCall(record.contracts, t as Address, parseEther("0.01"));
        const k = stats.byStatus.trade ?? {};
        stats.byStatus.trade = k;
        try {
          await wallet.sendTransaction({
            chain: null,
            to: c.to,
            data: c.data,
            value: c.value,
            gas: c.gas,
          });
          k.sent = (k.sent ?? 0) + 1;
        } catch {
          k.failed = (k.failed ?? 0) + 1;
        }
        await new Promise((r) => setTimeout(r, 300));
      }
    };
    const chaosLoop = async () => {
      const choices: ChaosAction[] = [
        ...SUPERVISED_ROLES.map((role) => ({ kind: "kill", role }) as ChaosAction),
        { kind: "kill", role: "api-2" },
        { kind: "pause-rpc", ms: UPSTREAM_TIMEOUT_MS + 1_500 },
      ];
      // Postgres is restarted once (in the first round of the deck).
      const once: ChaosAction[] = [{ kind: "restart-postgres", downMs: POSTGRES_DOWN_MS }];
      // Dealt from a shuffled deck: every kind of action happens once before any repeats.
      let deck: ChaosAction[] = [];
      while (loading()) {
        await new Promise((r) => setTimeout(r, o.actionEveryMs * (0.5 + random())));
        if (!loading()) break;
        if (deck.length === 0) {
          if (actions.length > 0) firstRoundDone = true;
          if (Date.now() >= until) break;
          deck = [...choices, ...once].sort(() => random() - 0.5);
          once.length = 0;
        }
        const a = deck.pop() as ChaosAction;
        const done = await act(a, {
          stack: s,
          dataDir,
          api2: a2,
          onPostgres: (pg) => {
            restartedPg = pg;
          },
        });
        actions.push(done);
        o.log(`chaos: ${done}`);
      }
    };
    await Promise.all([
      ...agents.map((a, i) => launchLoop(a, i)),
      webhookLoop(),
      readLoop(),
      readLoop(),
      tradeLoop(),
      chaosLoop(),
    ]);
    o.log(`chaos: load stopped; settling (up to ${SETTLE_MS / 1000} s)`);
    return await verify({
      o,
      env,
      s,
      a2,
      apis,
      stats,
      actions,
      launched,
      webhooksAccepted,
      agents,
      record,
      sql: sql(),
    });
  } catch (error) {
    o.log(
      `chaos: failed; the supervisor's last lines:\n${stack?.output().split("\n").slice(-40).join("\n")}`,
    );
    throw error;
  } finally {
    await api2?.kill();
    await stack?.cleanup();
    await restartedPg?.stop();
  }
}

async function verify(p: {
  o: ChaosOptions;
  env: Record<string, string>;
  s: Stack;
  a2: Awaited<ReturnType<typeof secondApi>>;
  apis: string[];
  stats: LoadStats;
  actions: string[];
  launched: Map<string, string>;
  webhooksAccepted: Set<string>;
  agents: { agentId: string }[];
  record: NonNullable<ReturnType<typeof readDeploymentRecord>>;
  sql: ReturnType<typeof stackSql>;
}): Promise<ChaosReport> {
  const { sql, record } = p;
  const problems: string[] = [];
  try {
    if (!p.a2.alive()) await p.a2.start();
    // Every role is back: the supervisor restarted what was killed.
    const rolesBack: string[] = [];
    for (const role of SUPERVISED_ROLES) {
      await waitFor(`${role} back`, async () => (rolePid(p.s, role) ? true : undefined), 60_000)
        .then(() => rolesBack.push(role))
        .catch(() => problems.push(`${role} did not come back`));
    }
    // Postgres answers again (chaos restarted it once).
    await waitFor("postgres back", async () => ((await sql`select 1`) ? true : undefined), 60_000)
      .then(() => rolesBack.push("postgres"))
      .catch(() => problems.push("postgres did not come back"));
    for (const api of p.apis) {
      const ok = await waitFor(
        `${api} healthy`,
        async () => ((await fetch(`${api}/health`)).ok ? true : undefined),
        30_000,
      ).catch(() => false);
      if (ok) rolesBack.push(api === p.s.apiUrl ? "api" : "api-2");
      else problems.push(`${api} is not healthy`);
    }
    // Sagas settle: none still running.
    await waitFor(
      "sagas settled",
      async () => {
        const [r] =
          await sql`select count(*)::int as n from app.launch_sagas where status = 'running'`;
        return r?.n === 0 ? true : undefined;
      },
      SETTLE_MS,
    ).catch(() => problems.push("a launch saga is still running"));
    const sagas = (await sql`select agent_id as agent, status, count(*)::int as n
      from app.launch_sagas group by 1, 2 order by 1`) as unknown as ChaosReport["sagas"];
    for (const a of p.agents) {
      const rows = sagas.filter((x) => x.agent === a.agentId);
      if (rows.reduce((n, x) => n + x.n, 0) > 1)
        problems.push(`agent ${a.agentId} has ${rows.length} sagas`);
    }

    // Launches: each accepted one is on chain exactly once; no token beyond them.
    const client = chainClient(p.env);
    const fromBlock = BigInt(record.deployedAtBlock);
    const created = await client.getLogs({
      address: record.contracts.tokenManager2,
      event: getAbiItem({ abi: tokenManager2Abi, name: "TokenCreate" }),
      fromBlock,
    });
    const onChain = created.map((l) => String(l.args.token).toLowerCase());
    for (const [agent, token] of p.launched) {
      const n = onChain.filter((t) => t === token.toLowerCase()).length;
      if (n !== 1) problems.push(`agent ${agent}'s token ${token} is on chain ${n} times`);
    }
    const succeeded = sagas.filter((x) => x.status === "succeeded").reduce((n, x) => n + x.n, 0);
    if (onChain.length !== succeeded)
      problems.push(`${onChain.length} tokens on chain, ${succeeded} sagas succeeded`);
    const registered = (await client.readContract({
      address: record.contracts.serviceRegistry,
      abi: serviceRegistryAbi,
      functionName: "tokenCount",
    })) as bigint;
    if (Number(registered) !== succeeded)
      problems.push(`${registered} tokens registered, ${succeeded} sagas succeeded`);

    // Webhooks: the inbox drains; each accepted one is one agent_events row.
    await waitFor(
      "inbox drained",
      async () => {
        const [r] =
          await sql`select count(*)::int as n from app.webhook_inbox where processed_at is null and failed_at is null`;
        return r?.n === 0 ? true : undefined;
      },
      SETTLE_MS,
    ).catch(() => problems.push("the webhook inbox did not drain"));
    const events = (await sql`select source_event_id as id, count(*)::int as n from app.agent_events
      where source_event_id like 'chaos-%' group by 1`) as unknown as { id: string; n: number }[];
    const counts = new Map(events.map((e) => [e.id, e.n]));
    const missing = [...p.webhooksAccepted].filter((id) => !counts.has(id));
    const duplicates = events.filter((e) => e.n > 1).length;
    if (missing.length)
      problems.push(`${missing.length} accepted webhooks missing from agent_events`);
    if (duplicates) problems.push(`${duplicates} webhooks stored more than once`);
    const [dead] =
      await sql`select count(*)::int as n from app.webhook_inbox where failed_at is not null`;
    if (dead?.n) problems.push(`${dead.n} webhooks dead-lettered`);

    // The index equals the chain (what a fresh reindex would compute from the logs). Trades
    // sent at the end may still be mined: compare once the index holds the head, up to 3 times.
    let indexMismatches: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      await new Promise((r) => setTimeout(r, 5_000));
      const head = await client.getBlockNumber();
      await waitFor(
        "index at head",
        async () => {
          const [r] = await sql.unsafe(
            `select substring(latest_checkpoint, 27, 16)::bigint as b from onchain._ponder_checkpoint where chain_id = 56`,
          );
          return r && BigInt(r.b) >= head ? true : undefined;
        },
        SETTLE_MS,
      ).catch(() => problems.push(`the index did not reach block ${head}`));
      indexMismatches = await checkIndex({ sql: sql as never, schema: "onchain", client, record });
      if (indexMismatches.length === 0) break;
    }
    if (indexMismatches.length) problems.push(`${indexMismatches.length} index mismatches`);

    if (p.stats.unexpected5xx.length)
      problems.push(`${p.stats.unexpected5xx.length} unexpected 5xx answers`);

    const report: ChaosReport = {
      actions: p.actions,
      stats: p.stats,
      launches: {
        accepted: p.launched.size,
        agents: p.agents.length,
        tokensOnChain: onChain.length,
        registered,
      },
      webhooks: {
        accepted: p.webhooksAccepted.size,
        rows: events.length,
        duplicates,
        missing: missing.slice(0, 10),
      },
      indexMismatches: indexMismatches.slice(0, 20),
      sagas,
      rolesBack,
      problems,
    };
    printReport(report, p.o.log);
    return report;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

function printReport(r: ChaosReport, log: (l: string) => void): void {
  const kinds = new Map<string, number>();
  for (const a of r.actions) {
    const k = a.replace(/ \((pid|up again in) \d+( ms)?\)/, "");
    kinds.set(k, (kinds.get(k) ?? 0) + 1);
  }
  log(`chaos: ${r.actions.length} actions: ${[...kinds].map(([k, n]) => `${n}x ${k}`).join("; ")}`);
  for (const [kind, s] of Object.entries(r.stats.byStatus))
    log(`chaos: ${kind} requests by status ${JSON.stringify(s)}`);
  log(
    `chaos: launches accepted ${r.launches.accepted}/${r.launches.agents}, tokens on chain ${r.launches.tokensOnChain}, registered ${r.launches.registered}`,
  );
  log(
    `chaos: webhooks accepted ${r.webhooks.accepted}, in agent_events ${r.webhooks.rows}, duplicated ${r.webhooks.duplicates}, missing ${r.webhooks.missing.length}`,
  );
  log(`chaos: index vs chain: ${r.indexMismatches.length} mismatches`);
  for (const m of r.indexMismatches.slice(0, 10)) log(`chaos:   ${m}`);
  log(`chaos: roles back: ${r.rolesBack.join(", ")}`);
  for (const x of r.stats.unexpected5xx.slice(0, 10)) log(`chaos: unexpected 5xx: ${x}`);
  log(
    r.problems.length ? `chaos: PROBLEMS\n  ${r.problems.join("\n  ")}` : "chaos: no problem found",
  );
}
