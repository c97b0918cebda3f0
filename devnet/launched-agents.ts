import { loadConfig } from "../lib/config.ts";
import { createSql } from "../lib/db/client.ts";
import { resolveDatabaseUrl } from "../lib/db/url.ts";
import { DEVNET_LIMITS } from "./limits.ts";

// What `devnet seed` reads of the agents launched through the API, so their tokens trade and
// their addresses get USDC with the story's own tokens. Read-only; an empty database is none.

type Address = `0x${string}`;

/** The tokens of the newest agents launched through the API (at most `DEVNET_LIMITS.seedLaunchedTokens`). */
export async function launchedTokens(dataDir: string): Promise<Address[]> {
  const config = loadConfig({ ...process.env, LAUNCHPAD_DATA_DIR: dataDir });
  const sql = createSql(resolveDatabaseUrl(config), { max: 1, appName: "launchpad-seed" });
  try {
    const rows = await sql<{ token: Address }[]>`
      select token_address as token from app.agents where token_address is not null
      order by launched_at desc nulls last limit ${DEVNET_LIMITS.seedLaunchedTokens}`;
    return rows.map((r) => r.token);
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") return [];
    throw error;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** The newest agent's perps deposit address: a registered perps wallet, else its own wallet. */
export async function newestDepositAddress(dataDir: string): Promise<Address | undefined> {
  const config = loadConfig({ ...process.env, LAUNCHPAD_DATA_DIR: dataDir });
  const sql = createSql(resolveDatabaseUrl(config), { max: 1, appName: "launchpad-seed" });
  try {
    const [perps] = await sql<{ address: Address }[]>`
      select lower(w.address) as address from app.agent_wallets w
      join app.agents a using (agent_id)
      where w.role = 'perps' order by a.launched_at desc nulls last, w.created_at desc limit 1`;
    if (perps) return perps.address;
    const [row] = await sql<{ address: Address }[]>`
      select lower(wallet_address) as address from app.agents
      where wallet_address is not null order by launched_at desc nulls last limit 1`;
    return row?.address;
  } catch (error) {
    // No database or no views yet: nothing to seed for.
    if ((error as { code?: string }).code === "42P01") return undefined;
    throw error;
  } finally {
    await sql.end({ timeout: 1 });
  }
}
