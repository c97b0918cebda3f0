import { readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { type Address, createPublicClient, http, type PublicClient } from "viem";
import { descendants, runCli, type Stack } from "./cli.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789abcdef0123";

/** Environment of a launch test stack (test mode; short upstream timeouts; XFF trusted). */
export function launchEnv(
  base: Record<string, string>,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ...base,
    LAUNCHPAD_ENV: "test",
    ADMIN_TOKEN,
    UPSTREAM_TIMEOUT_MS: "1500",
    // Each test request names its own client IP, so the per-IP limit never throttles a test.
    TRUST_PROXY: "1",
    // The suites launch dozens of agents at once from one address (several Steward calls each),
    // a burst no production caller makes; the stand-in's default, Steward's 100 a minute, would
    // refuse it. Its own test keeps the default (devnet/stand-ins/steward/rate-limit.test.ts).
    STEWARD_STANDIN_RATE_LIMIT_PER_MINUTE: "6000",
    ...extra,
  };
}

let ipCounter = 1;
/** A fresh client IP for X-Forwarded-For. */
export const nextIp = () => `10.9.${(ipCounter >> 8) & 255}.${ipCounter++ & 255}`;

export type Agent = { agentId: string; apiKey: string };

export async function createAgentCli(env: Record<string, string>, name: string): Promise<Agent> {
  const r = await runCli(["agents", "create", "--name", name, "--json"], env);
  if (r.code !== 0) throw new Error(`agents create failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1) as string) as Agent;
}

export function launchBody(
  a: { agentId: string },
  imageUrl: string,
  over: Record<string, unknown> = {},
) {
  return {
    agentId: a.agentId,
    name: "Test Agent",
    ticker: "TAGT",
    description: "An agent that launches its own token in a test",
    imageUrl,
    chainId: 56,
    ...over,
  };
}

export async function launch(
  apiUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${apiUrl}/v2/agents/launch`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": nextIp(), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

export const bearer = (a: Agent) => ({ authorization: `Bearer ${a.apiKey}` });

export function stackSql(dataDir: string) {
  const { port, password } = JSON.parse(readFileSync(join(dataDir, "postgres.json"), "utf8"));
  return postgres(`postgres://launchpad:${password}@127.0.0.1:${port}/launchpad`, {
    max: 2,
    onnotice: () => {},
  });
}

export function chainClient(env: Record<string, string>): PublicClient {
  return createPublicClient({
    transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`),
  }) as PublicClient;
}

export type Record_ = {
  contracts: Record<string, Address>;
  deployedAtBlock: number;
  accounts: { relayer: Address };
};
export function readRecord(dataDir: string): Record_ {
  return JSON.parse(readFileSync(join(dataDir, "devnet", "deployment.json"), "utf8"));
}

/** The pid of a role child (`launchpad <role>`) of the stack. */
export function rolePid(stack: Stack, role: string): number {
  const pid = descendants(stack.child.pid as number).find((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").slice(-2).includes(role);
    } catch {
      return false;
    }
  });
  if (!pid) throw new Error(`no ${role} process`);
  return pid;
}

/**
 * Waits until the worker has prepared (provisioned and funded) the wallets of these agents
 * before their launch (jobs/launch/prepare.ts); returns their addresses by agent.
 */
export async function waitWalletsPrepared(
  dataDir: string,
  agentIds: string[],
  timeoutMs = 120_000,
): Promise<Map<string, string>> {
  const sql = stackSql(dataDir);
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = await sql<{ agent_id: string; wallet_address: string }[]>`
        select agent_id, wallet_address from app.launch_wallets
        where status = 'ready' and agent_id = any(${agentIds})`;
      if (rows.length === agentIds.length)
        return new Map(rows.map((r) => [r.agent_id, r.wallet_address]));
      if (Date.now() > deadline) throw new Error(`wallets not prepared: ${agentIds.join(", ")}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await sql.end();
  }
}
