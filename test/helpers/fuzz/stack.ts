import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { embeddedPostgresUrl } from "../../../lib/local/postgres/embedded.ts";
import { isolatedEnv, type Stack, startStack } from "../cli.ts";
import { ADMIN_TOKEN, createAgentCli, launchEnv, nextIp, stackSql } from "../launch.ts";
import type { Credentials } from "./cases.ts";
import type { FuzzOptions } from "./runner.ts";
import { tableFingerprint } from "./runner.ts";

/** The web app's origin of test stacks (WEB_URL's default): cookie writes must come from it. */
const WEB = "http://127.0.0.1:3000";
/** Anvil's account 9 of the test mnemonic: never used by the service. */
const USER_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";

/**
 * Tables a refused request may still change, or that change under it, and why: the per-client
 * request counters (every request counts, refused or not), and the roles' cursors, caches,
 * heartbeats and snapshots, which move with the chain and the clock while the fuzzer runs (no
 * route writes them).
 */
export const FUZZ_SNAPSHOT_SKIP = [
  "rate_limit",
  "chain_projection",
  "projection_position",
  "outbound_cursor",
  "nav_snapshots",
  // Written by the roles on their own clock: heartbeats, the pollers' cursors and
  // caches, the six-hourly policy auditor's runs.
  "role_heartbeats",
  "instances",
  "poller_state",
  "perps_accounts",
  "perps_account_hours",
  "perps_fill_totals",
  "policy_audit_runs",
  // The launch worker prepares the wallets of registered agents (jobs/launch/prepare.ts) and
  // logs them in at four.meme.
  "launch_wallets",
  "fourmeme_sessions",
  // The social poller's engagement counts and follower hours.
  "social_post_metrics",
  "social_follower_hours",
  // The NAV job's runway figures on each agent (lib/agents/runway.ts); the agent's other
  // columns are still compared.
  "agents.treasury_usd",
  "agents.monthly_burn_usd",
  "agents.runway_days",
  "agents.runway_block",
  "agents.runway_at",
];

export type FuzzStack = {
  stack: Stack;
  env: Record<string, string>;
  sql: ReturnType<typeof stackSql>;
  options: Omit<FuzzOptions, "seed" | "runs">;
  close: () => Promise<void>;
};

/**
 * A whole service (`launchpad start`, test mode) ready to fuzz: an agent with its key, the
 * operator token, a SIWE session of a user, the app tables' fingerprint and the secrets that
 * must never be answered.
 *
 * @example
 * const f = await fuzzStack(); const report = await fuzz({ ...f.options, seed: 1, runs: 10 });
 */
export async function fuzzStack(): Promise<FuzzStack> {
  const env = launchEnv(await isolatedEnv(), { LOG_LEVEL: "warn" });
  const stack = await startStack(env);
  const sql = stackSql(env.LAUNCHPAD_DATA_DIR as string);
  try {
    const agent = await createAgentCli(env, "fuzz-agent");
    const credentials = async (): Promise<Credentials> => ({
      agentKey: { authorization: `Bearer ${agent.apiKey}` },
      agentKeyHeader: { "x-agent-api-key": agent.apiKey },
      operatorToken: { authorization: `Bearer ${ADMIN_TOKEN}` },
      // A fresh session per operation: fuzzing POST /auth/logout ends the one it was given.
      siweSession: { cookie: await siweCookie(stack.apiUrl), origin: WEB },
    });
    const url = embeddedPostgresUrl(env.LAUNCHPAD_DATA_DIR as string) ?? "";
    const password = /postgres:\/\/[^:]+:([^@]+)@/.exec(url)?.[1];
    return {
      stack,
      env,
      sql,
      options: {
        baseUrl: stack.apiUrl,
        credentials,
        secrets: [ADMIN_TOKEN, agent.apiKey, ...(password ? [password] : [])],
        snapshot: tableFingerprint(sql, "app", FUZZ_SNAPSHOT_SKIP),
        headers: () => ({ "x-forwarded-for": nextIp(), origin: WEB }),
      },
      close: async () => {
        await sql.end({ timeout: 1 });
        await stack.cleanup();
      },
    };
  } catch (error) {
    await sql.end({ timeout: 1 });
    await stack.cleanup();
    throw error;
  }
}

/** Signs a devnet user in with SIWE and returns its `siwe_session=…` cookie. */
async function siweCookie(apiUrl: string): Promise<string> {
  const account = privateKeyToAccount(USER_KEY);
  const headers = { "x-forwarded-for": nextIp(), origin: WEB };
  const n = await fetch(`${apiUrl}/auth/nonce?address=${account.address}`, { headers });
  const nonce = ((await n.json()) as { data: { nonce: string } }).data.nonce;
  const message = createSiweMessage({
    domain: new URL(WEB).host,
    address: account.address,
    uri: WEB,
    version: "1",
    chainId: 56,
    nonce,
    issuedAt: new Date(),
  });
  const signature = await account.signMessage({ message });
  const r = await fetch(`${apiUrl}/auth/verify`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ message, signature }),
  });
  const cookie = /siwe_session=[^;]+/.exec(r.headers.get("set-cookie") ?? "")?.[0];
  if (!cookie) throw new Error(`SIWE sign-in failed: ${r.status} ${await r.text()}`);
  return cookie;
}
