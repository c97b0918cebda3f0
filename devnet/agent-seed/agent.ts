import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { createAgent } from "../../lib/agents/keys.ts";
import { type Actor, addWallet, putPersona } from "../../lib/agents/records.ts";
import { ConfigError, loadConfig } from "../../lib/config.ts";
import { createSql, type Sql } from "../../lib/db/client.ts";
import { resolveDatabaseUrl } from "../../lib/db/url.ts";
import { DEVNET_LIMITS } from "../limits.ts";

type Address = `0x${string}`;

/** The agent `devnet seed` brings to life, as the stand-ins and the chains need it. */
export type SeedAgent = {
  agentId: string;
  name: string;
  ticker: string;
  token: Address;
  /** The agent's own (steward) wallet. */
  wallet: Address;
  /** Its treasury Safe. */
  treasury: Address;
  /** Its X handle (persona). */
  handle: string;
  /** Its perps account: a registered `perps` wallet (the deposit address on Arbitrum too). */
  perps: Address;
  /** True when this run launched it (no agent had been launched before). */
  launched: boolean;
};

/** Who the seed's records name as their author (as `launchpad agents feature` does). */
const SEED_ACTOR: Actor = { kind: "operator", id: "devnet-seed" };
/** The agent the seed launches on a devnet where none was launched yet. */
const SEED_LAUNCH = {
  name: "Seed Agent",
  ticker: "SEED",
  description:
    "A sample agent launched by the devnet seed: perps trades, a treasury transaction and posts.",
} as const;

type AgentRow = {
  agent_id: string;
  name: string;
  ticker: string;
  token_address: Address;
  wallet_address: Address;
  treasury_address: Address;
  persona: {
    name: string;
    handle: string | null;
    bio: string;
    links: { label: string; url: string }[];
    image_url: string | null;
  } | null;
  perps: Address | null;
};

async function newestAgent(sql: Sql): Promise<AgentRow | undefined> {
  const [row] = await sql<AgentRow[]>`
    select a.agent_id, a.name, a.ticker, a.token_address, a.wallet_address, a.treasury_address,
      (select to_jsonb(p) from app.agent_personas p where p.agent_id = a.agent_id) as persona,
      (select w.address from app.agent_wallets w where w.agent_id = a.agent_id and w.role = 'perps'
        order by w.created_at desc limit 1) as perps
    from app.agents a
    where a.token_address is not null and a.wallet_address is not null
      and a.treasury_address is not null
    order by a.launched_at desc nulls last limit 1`;
  return row;
}

/**
 * Launches an agent through the public API, as an agent would: a key from the operator's
 * `agents create`, then `POST /v2/agents/launch`, retried with the same Idempotency-Key while
 * the launch is still running (503).
 */
async function launchThroughApi(
  sql: Sql,
  p: { apiUrl: string; sampleImageUrl: string; log: (line: string) => void },
): Promise<void> {
  const key = await createAgent(sql, { name: SEED_LAUNCH.name });
  const body = JSON.stringify({
    agentId: key.agentId,
    name: SEED_LAUNCH.name,
    ticker: SEED_LAUNCH.ticker,
    description: SEED_LAUNCH.description,
    imageUrl: p.sampleImageUrl,
    chainId: 56,
  });
  const headers = {
    "content-type": "application/json",
    authorization: `Bearer ${key.apiKey}`,
    "idempotency-key": randomUUID(),
  };
  p.log(`agent: launching "${SEED_LAUNCH.name}" through ${p.apiUrl}/v2/agents/launch`);
  const deadline = Date.now() + DEVNET_LIMITS.seedLaunchWaitMs;
  for (let wait = 1_000; ; wait = Math.min(wait * 2, 8_000)) {
    const r = await fetch(`${p.apiUrl}/v2/agents/launch`, { method: "POST", headers, body });
    if (r.ok) return;
    const text = await r.text();
    if ((r.status !== 503 && r.status !== 502) || Date.now() + wait > deadline) {
      throw new Error(`the seed's launch failed: ${r.status} ${text}`);
    }
    await sleep(wait);
  }
}

/** The API answers at all (`launchpad start` runs it; `launchpad devnet` alone does not). */
async function apiUp(apiUrl: string): Promise<boolean> {
  return fetch(`${apiUrl}/health`).then(
    (r) => r.ok,
    () => false,
  );
}

/**
 * The agent whose feed `devnet seed` fills: the newest agent launched through the API, or, on
 * a devnet where none was, one the seed launches through the API itself (the storyline's
 * tokens are not agents: no key, no persona, no feed). It gets an X handle in its persona and
 * a perps account (its own wallet, registered with role `perps`) unless it has them, written
 * as the operator `devnet-seed`. Undefined (and said) when there is no agent and no API.
 */
export async function seedAgent(p: {
  dataDir: string;
  apiUrl: string;
  sampleImageUrl: string;
  log: (line: string) => void;
}): Promise<SeedAgent | undefined> {
  const config = loadConfig({ ...process.env, LAUNCHPAD_DATA_DIR: p.dataDir });
  let url: string;
  try {
    url = resolveDatabaseUrl(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    p.log(`agent: ${error.message}: stand-ins not seeded`);
    return undefined;
  }
  const sql = createSql(url, { max: 1, appName: "launchpad-seed" });
  try {
    let row: AgentRow | undefined;
    try {
      row = await newestAgent(sql);
    } catch (error) {
      // `launchpad devnet` alone: no database (or no schema yet) to find or record an agent in.
      const code = (error as { code?: string }).code;
      if (code !== "ECONNREFUSED" && code !== "42P01") throw error;
      p.log(`agent: no database with agents (${code}): stand-ins not seeded`);
      return undefined;
    }
    const launched = !row;
    if (!row) {
      if (!(await apiUp(p.apiUrl))) {
        p.log(`agent: no API at ${p.apiUrl} to launch one (run npm start): stand-ins not seeded`);
        return undefined;
      }
      await launchThroughApi(sql, p);
      row = await newestAgent(sql);
      if (!row) throw new Error("the seed's launch answered 200 but no launched agent is stored");
    }
    const handle =
      row.persona?.handle ??
      // X handles are at most 15 characters.
      `${row.ticker.toLowerCase().slice(0, 8)}_${row.token_address.slice(2, 8)}`;
    if (!row.persona?.handle) {
      // Keeps whatever persona the agent has; adds the handle the social poller follows.
      await putPersona(sql, row.agent_id, SEED_ACTOR, {
        name: row.persona?.name ?? row.name,
        handle,
        bio: row.persona?.bio,
        links: row.persona?.links,
        imageUrl: row.persona?.image_url,
      });
    }
    const perps = row.perps ?? row.wallet_address;
    if (!row.perps) {
      await addWallet(sql, row.agent_id, SEED_ACTOR, {
        chain: "hyperliquid",
        address: perps,
        role: "perps",
        label: "devnet seed: the agent's wallet",
      });
    }
    p.log(
      `agent: ${row.name} (${row.token_address})${launched ? ", launched now" : ""}: X @${handle}, perps account ${perps}`,
    );
    return {
      agentId: row.agent_id,
      name: row.name,
      ticker: row.ticker,
      token: row.token_address,
      wallet: row.wallet_address,
      treasury: row.treasury_address,
      handle,
      perps,
      launched,
    };
  } finally {
    await sql.end({ timeout: 1 });
  }
}
