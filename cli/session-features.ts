import { createPublicClient, http, type LocalAccount, type PublicClient, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LaunchFeatures } from "../api/agent-launch/register.ts";
import type { CreateAppParameters } from "../api/app.ts";
import { sagaContext } from "../jobs/launch/context.ts";
import { previewAgentLaunch } from "../jobs/launch/preview.ts";
import { resolveChain } from "../lib/chain.ts";
import { type Config, ConfigError } from "../lib/config.ts";
import type { Sql } from "../lib/db/client.ts";
import { resolveEndpoints } from "../lib/endpoints.ts";
import type { Logger } from "../lib/logger.ts";
import { createXClient } from "../services/x/client.ts";
import { resolveX } from "../services/x/config.ts";

/**
 * The session features of a loaded configuration: a chain client, and deposit-launch writes
 * when a launch factory and a relayer key are known (the devnet's relayer locally).
 *
 * @example
 * const app = createApp({ ..., sessions: sessionFeaturesFromConfig(config, sql, log) });
 */
export function sessionFeaturesFromConfig(
  config: Config,
  sql: Sql,
  log: Logger,
): NonNullable<CreateAppParameters["sessions"]> {
  const client = createPublicClient({
    transport: http(config.rpcUrls[0], { timeout: config.UPSTREAM_TIMEOUT_MS, retryCount: 1 }),
    pollingInterval: config.devnet ? 200 : 1000,
  }) as PublicClient;
  // On the devnet the CLI hands the relayer's key over as configuration too.
  const relayer: LocalAccount | undefined = config.RELAYER_PRIVATE_KEY
    ? privateKeyToAccount(config.RELAYER_PRIVATE_KEY)
    : undefined;
  const factory = launchFactoryAddress(config, log);
  const x = resolveX(config);
  const oauth = x && {
    sql,
    clientId: x.clientId,
    clientSecret: x.clientSecret,
    oauthUrl: x.oauthUrl,
    apiUrl: x.apiUrl,
    redirectUri: `${config.apiUrl}/auth/social/callback`,
    x: createXClient({ apiUrl: x.apiUrl, timeoutMs: config.UPSTREAM_TIMEOUT_MS }),
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
  };
  if (!relayer || !factory) return { chain: client, oauth };
  const kill =
    config.LAUNCHPAD_ENV === "test" &&
    config.LAUNCHPAD_TEST_KILL_POINTS?.includes("deposit-launch:stored");
  return {
    chain: client,
    oauth,
    deposit: {
      sql,
      client,
      relayer,
      factory,
      chainId: 56,
      trustedImageOrigins: resolveEndpoints(config).trustedImageOrigins,
      budget: {
        perClientPerHour: config.RELAYER_LAUNCHES_PER_CLIENT_PER_HOUR,
        perDayWei: parseEther(config.RELAYER_BUDGET_BNB_PER_DAY),
      },
      killAfterStore: kill ? () => process.kill(process.pid, "SIGKILL") : undefined,
    },
  };
}

/** The factory deposit launches go through; none (writes off) while addresses are unknown. */
function launchFactoryAddress(config: Config, log: Logger) {
  try {
    return resolveChain(config).contracts.launchFactory;
  } catch (error) {
    // An API started before the devnet wrote its record still serves reads and sign-in.
    if (!(error instanceof ConfigError)) throw error;
    log.warn({ reason: error.message }, "deposit-launch writes are off");
    return undefined;
  }
}

/**
 * The agent launch's dry run for the API, over the saga's own context (same wallet, Safe and
 * gas rules); undefined when the saga cannot be configured here (no relayer on BSC).
 *
 * @example
 * features.preview = launchPreviewFromConfig(config, sql, log);
 */
export function launchPreviewFromConfig(
  config: Config,
  sql: Sql,
  log: Logger,
): LaunchFeatures["preview"] {
  try {
    const ctx = sagaContext({ config, sql, log });
    return (agentId, asked) => previewAgentLaunch(ctx, agentId, asked);
  } catch (error) {
    log.warn(
      { reason: error instanceof Error ? error.message : String(error) },
      "agent launch preview is off",
    );
    return undefined;
  }
}
