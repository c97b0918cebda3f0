import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseEnv } from "node:util";
import { parseEther } from "viem";
import { z } from "zod";
import { LaunchpadError } from "./errors.ts";
import { renameVariables } from "./renamed-variables.ts";
import { DEFAULT_TOKEN_TERMS, type TokenTerms, taxInfoProblem } from "./token-terms.ts";

/**
 * The service's whole configuration, read once from the environment (and an optional `.env`
 * in the working directory; real environment variables win). Every variable is documented in
 * `.env.example`. A malformed value stops the process with a one-line message naming it.
 */

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 20-byte hex address (0x + 40 hex digits)")
  .transform((a) => a.toLowerCase() as `0x${string}`);
const hash32 = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be 32-byte hex (0x + 64 hex digits)")
  .transform((h) => h.toLowerCase() as `0x${string}`);
const port = z.coerce
  .number({ error: "must be a port number" })
  .int("must be an integer")
  .min(1, "must be between 1 and 65535")
  .max(65535, "must be between 1 and 65535");
const nonNegativeInt = z.coerce.number({ error: "must be a number" }).int().min(0);
const bnbAmount = z
  .string()
  .regex(
    /^[0-9]{1,9}(\.[0-9]{1,18})?$/,
    "must be an amount of BNB, like 0.5 (at most 18 decimals)",
  );
const urlList = z
  .string()
  .transform((s) =>
    s
      .split(",")
      .map((u) => u.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.url({ protocol: /^(https?|wss?)$/, error: "must be http(s) or ws(s) URLs" })));
const postgresUrl = z
  .url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// or postgresql:// URL" })
  .optional();
const poolSize = (min: number) =>
  z.coerce
    .number({ error: "must be a number of connections" })
    .int("must be a whole number of connections")
    .min(min, `must be at least ${min}`)
    .max(500, "must be at most 500")
    .optional();
const schemaName = z
  .string()
  .regex(/^[a-z_][a-z0-9_]{0,44}$/, "must be a lowercase SQL identifier of at most 45 characters");

/** BNB a BNB-raise token's curve raises before it graduates (fourmeme-docs create-guide.md 3.2). */
export const FOUR_MEME_BNB_RAISE = 24;

/** Mainnet defaults (docs/upstreams.md, "Contracts on BSC mainnet"); the devnet overrides them from its deployment record. */
export const MAINNET = {
  tokenManager2: "0x5c952063c7fc8610ffdb798152d69f0b9550762b",
  identityRegistry: "0x8004a169fb4a3325136eb29fa0ceb6d2e539a432",
  agentIdentifier: "0x09b44a633de9f9ebf6fb9bdd5b5629d3dd2cef13",
  pancakeFactory: "0xca143ce32fe78f1f7019d7d551a6402fc5350c73",
  pancakeRouter: "0x10ed43c718714eb63d5aa57b78b54704e256024e",
  wbnb: "0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c",
  pairInitCodeHash: "0x00fb7f630766e6a796048ea87d01acd3068e8ff67d078148a3fa3f4a84f69bd5",
  bnbUsdFeed: "0x0567f2323251f0aab15c8dfb1967e4e8a7d42aee",
  /** Safe 1.4.1 on BSC (docs/upstreams.md). */
  safeL2Singleton: "0x29fcb43b46531bca003ddc8fcb67ffe91900c762",
  safeProxyFactory: "0x4e1dcf7ad4e460cfd30791ccc4f9c8a4f820ec67",
  safeFallbackHandler: "0xfd0732dc9e303f09fcef3a7388ad10a83459ec99",
} as const;

const schema = z.object({
  LAUNCHPAD_ENV: z.enum(["development", "production", "test"]).default("development"),
  LAUNCHPAD_DATA_DIR: z.string().min(1).default(".launchpad"),
  LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),

  DATABASE_URL: postgresUrl,
  LAUNCHPAD_PG_PORT: port.optional(),
  // Each role's main connection pool (docs/operations.md, "Connection budget"); unset: the
  // role's default (DB_LIMITS.apiConnections, JOB_LIMITS.workerConnections, DB_LIMITS.ponderConnections).
  API_DATABASE_POOL_SIZE: poolSize(1),
  WORKER_DATABASE_POOL_SIZE: poolSize(1),
  // Ponder splits its pool: 2 for itself, the rest in three equal parts (sync, indexing, reads).
  INDEXER_DATABASE_POOL_SIZE: poolSize(5),

  BSC_RPC_URL: urlList.optional(),
  BSC_WS_URL: z.url({ protocol: /^wss?$/, error: "must be a ws:// or wss:// URL" }).optional(),
  BSC_START_BLOCK: nonNegativeInt.optional(),
  // Set by the indexer for the Ponder deployment it runs (`launchpad reindex --from-block`).
  LAUNCHPAD_FROM_BLOCK: nonNegativeInt.optional(),

  DEVNET_HOST: z.string().default("127.0.0.1"),
  DEVNET_PORT: port.default(8545),
  // Seconds, fractional allowed: BSC mines every 0.45 s since Fermi (BEP-619), so a devnet at
  // its pace is `DEVNET_BLOCK_TIME=0.45`; 0 is automine.
  DEVNET_BLOCK_TIME: z.coerce.number({ error: "must be a number" }).min(0).default(1),
  DEVNET_MAX_RAISING_BNB: z.coerce.number({ error: "must be a number" }).positive().default(18),

  HOST: z.string().default("127.0.0.1"),
  PORT: port.default(3001),
  // The worker's GET /metrics (docs/operations.md); unset: the worker serves no HTTP.
  WORKER_METRICS_PORT: port.optional(),
  PONDER_PORT: port.default(42069),
  PUBLIC_BASE_URL: z.url().optional(),
  // The web app (`launchpad web`): its public URL, and the port it listens on when that differs
  // from the URL's (behind a proxy, or tests on a free port). 127.0.0.1, like the API's URL,
  // keeps the two same-site, so the API's SameSite=Lax session cookie reaches it.
  WEB_URL: z.url().default("http://127.0.0.1:3000"),
  WEB_PORT: port.optional(),
  /** Proxies in front of the API whose X-Forwarded-For entries are trusted (0: use the socket). */
  TRUST_PROXY: z.coerce
    .number({ error: "must be the number of trusted proxy hops (0, 1, 2, ...)" })
    .int("must be the number of trusted proxy hops (0, 1, 2, ...)")
    .min(0, "must be the number of trusted proxy hops (0, 1, 2, ...)")
    .max(10, "must be at most 10 proxy hops")
    .default(0),
  /** Link to a token on the launchpad; `{address}` is replaced by the token address. */
  LAUNCHPAD_TOKEN_URL: z
    .url()
    .refine((u) => u.includes("{address}"), "must contain {address}")
    .default("https://four.meme/token/{address}"),

  VIEWS_SCHEMA: schemaName.default("onchain"),

  // Rate limits per minute (api/AGENT.md "Limits" as defaults); 0 turns one off.
  RATE_LIMIT_PER_MINUTE: nonNegativeInt.default(60),
  RATE_LIMIT_AUTHENTICATED_PER_MINUTE: nonNegativeInt.default(600),
  LAUNCH_RATE_LIMIT_PER_MINUTE: nonNegativeInt.default(10),
  // The web role's own budget at the API (its server-side reads, sent with WEB_SERVICE_KEY),
  // and the page views per minute the web role serves one visitor IP.
  RATE_LIMIT_SERVICE_PER_MINUTE: nonNegativeInt.default(6000),
  WEB_RATE_LIMIT_PER_MINUTE: nonNegativeInt.default(120),
  /** Shared by `launchpad api` and `launchpad web`; generated into the data dir locally. */
  WEB_SERVICE_KEY: z.string().min(32, "must be at least 32 characters").optional(),

  TOKEN_MANAGER_ADDRESS: address.default(MAINNET.tokenManager2),
  IDENTITY_REGISTRY_ADDRESS: address.default(MAINNET.identityRegistry),
  AGENT_IDENTIFIER_ADDRESS: address.default(MAINNET.agentIdentifier),
  DEX_FACTORY_ADDRESS: address.default(MAINNET.pancakeFactory),
  DEX_ROUTER_ADDRESS: address.default(MAINNET.pancakeRouter),
  WBNB_ADDRESS: address.default(MAINNET.wbnb),
  PAIR_INIT_CODE_HASH: hash32.default(MAINNET.pairInitCodeHash),
  BNB_USD_FEED_ADDRESS: address.default(MAINNET.bnbUsdFeed),
  LAUNCH_FACTORY_ADDRESS: address.optional(),
  SERVICE_REGISTRY_ADDRESS: address.optional(),
  SAFE_L2_SINGLETON_ADDRESS: address.default(MAINNET.safeL2Singleton),
  SAFE_PROXY_FACTORY_ADDRESS: address.default(MAINNET.safeProxyFactory),
  SAFE_FALLBACK_HANDLER_ADDRESS: address.default(MAINNET.safeFallbackHandler),
  // Set by the CLI in devnet mode: the deployment record the contract variables came from.
  DEVNET_RECORD: z.string().optional(),

  // Agent launch. Operator endpoints answer only with this bearer token.
  ADMIN_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
  // External services: unset URL = the local stand-in on its port (started by `launchpad start`).
  STEWARD_URL: z.url({ protocol: /^https?$/ }).optional(),
  STEWARD_PORT: port.default(3011),
  STEWARD_API_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  // Steward's tenant (`X-Steward-Tenant`); the local stand-in's is "launchpad-local".
  STEWARD_TENANT_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1-128 of A-Z a-z 0-9 _ . : -")
    .optional(),
  STEWARD_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  STEWARD_MASTER_KEY: hash32.optional(),
  // Seals the service's own secrets at rest (outbound webhook signing secrets), the same value on
  // every API and worker; unset outside production: STEWARD_MASTER_KEY or the data dir's key.
  SECRETS_KEY: hash32.optional(),
  // Inbound webhook secrets; local mode generates unset ones into the data dir.
  CLOUD_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  CODE_HOST_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  AGENT_EVENTS_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  FOUR_MEME_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  FOUR_MEME_API_PORT: port.default(3012),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  RELAYER_PRIVATE_KEY: hash32.optional(),
  // What the relayer pays for deposit launches (callers with no funds of their own; docs/security.md
  // API6): BNB per UTC day in all, and launches per client address (an IPv6 /64 is one) per hour.
  // 0: it pays for none (wallets send their own: POST /v2/launches/transaction).
  RELAYER_BUDGET_BNB_PER_DAY: bnbAmount.default("0.5"),
  RELAYER_LAUNCHES_PER_CLIENT_PER_HOUR: nonNegativeInt.max(1_000_000).default(10),
  SAFE_OWNERS: z
    .string()
    .transform((s) =>
      s
        .split(",")
        .map((a) => a.trim())
        .filter(Boolean),
    )
    .pipe(z.array(address))
    .optional(),
  SAFE_THRESHOLD: z.coerce.number().int().min(1).default(1),
  // The tax terms every launched token gets (four.meme's tokenTaxInfo, percent; the recipient
  // is the agent's treasury Safe). Checked against four.meme's rules below.
  TOKEN_TAX_FEE_RATE: z.coerce.number().default(DEFAULT_TOKEN_TERMS.feeRate),
  TOKEN_TAX_BURN_RATE: z.coerce.number().default(DEFAULT_TOKEN_TERMS.burnRate),
  TOKEN_TAX_DIVIDE_RATE: z.coerce.number().default(DEFAULT_TOKEN_TERMS.divideRate),
  TOKEN_TAX_LIQUIDITY_RATE: z.coerce.number().default(DEFAULT_TOKEN_TERMS.liquidityRate),
  TOKEN_TAX_RECIPIENT_RATE: z.coerce.number().default(DEFAULT_TOKEN_TERMS.recipientRate),
  TOKEN_TAX_MIN_SHARING: z.coerce.number().default(DEFAULT_TOKEN_TERMS.minSharing),
  LAUNCH_DEADLINE_SECONDS: z.coerce.number().int().min(1).max(600).default(120),
  // The most BNB an agent's first buy at launch may spend (four.meme's preSale): the launch
  // funds the agent's wallet for it. 0 turns first buys off.
  LAUNCH_FIRST_BUY_MAX_BNB: z
    .string()
    .regex(/^\d+(\.\d{1,18})?$/, "must be an amount of BNB such as 0.1 (at most 18 decimals)")
    .default("0.1"),
  // Origins whose images skip the public-address rule: the local stand-ins, or in production the
  // operator's own https image host on a private network (never http there).
  LAUNCH_IMAGE_TRUSTED_ORIGINS: urlList.optional(),
  // Outbound webhooks: origins that skip the https and public-address rules (local mode only).
  OUTBOUND_WEBHOOK_TRUSTED_ORIGINS: urlList.optional(),
  // Test mode only: multiplies every outbound webhook duration (backoff, 24 h window, lease).
  OUTBOUND_WEBHOOK_TIME_SCALE: z.coerce.number().positive().max(1).optional(),
  // Patron login and announcements over X. Unset X_OAUTH_URL: the local stand-in
  // on X_PORT (never in production). X_POST_TOKEN: the service account's user token.
  X_CLIENT_ID: z.string().min(1).optional(),
  X_CLIENT_SECRET: z.string().min(8, "must be at least 8 characters").optional(),
  X_OAUTH_URL: z.url({ protocol: /^https?$/ }).optional(),
  X_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  X_PORT: port.default(3013),
  X_POST_TOKEN: z.string().min(8, "must be at least 8 characters").optional(),
  // Off-chain pollers and the second chain (docs/pollers.md). An unset URL means the
  // local stand-in on its port (never in production, where the URL is required to poll at all).
  HYPERLIQUID_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  HYPERLIQUID_PORT: port.default(3014),
  SAFE_TX_SERVICE_URL: z.url({ protocol: /^https?$/ }).optional(),
  // The hosted Safe API's key (`Authorization: Bearer`); its 5 requests a second are per key.
  SAFE_TX_SERVICE_API_KEY: z.string().min(1).optional(),
  SAFE_TX_SERVICE_PORT: port.default(3015),
  X_BEARER_TOKEN: z.string().min(8, "must be at least 8 characters").optional(),
  // The X API access tier of the app token: its read windows pace the social poller (and the
  // local stand-in enforces them). docs/upstreams.md "X".
  X_API_TIER: z.enum(["free", "basic", "pro", "pay-per-use"]).default("basic"),
  ARBITRUM_RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
  // Where the indexer subscribes to Arbitrum's new heads instead of polling for them.
  ARBITRUM_WS_URL: z.url({ protocol: /^wss?$/, error: "must be a ws:// or wss:// URL" }).optional(),
  ARBITRUM_USDC_ADDRESS: address.optional(),
  ARBITRUM_DEVNET_PORT: port.default(8546),
  // The perps venue's deposit contract on Arbitrum (default: Hyperliquid's Bridge2) and the
  // first Arbitrum block the indexer reads (required with ARBITRUM_RPC_URL in production).
  ARBITRUM_BRIDGE_ADDRESS: address.optional(),
  ARBITRUM_START_BLOCK: nonNegativeInt.optional(),
  // The local Steward stand-in's requests a minute per client address (default Steward's 100).
  STEWARD_STANDIN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().optional(),
  // Test mode only: multiplies every poll interval (0.1 = ten times as often).
  POLL_TIME_SCALE: z.coerce.number().min(0.001).max(1).optional(),
  // Test mode only: saga steps after which the worker kills itself once (`step,step` or `all`).
  LAUNCHPAD_TEST_KILL_POINTS: z.string().optional(),
  // Test mode only: the roles reach the devnet through this URL (a counting RPC proxy in front
  // of anvil, the load harness's), while anvil still listens on DEVNET_PORT.
  LAUNCHPAD_TEST_DEVNET_RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
});

export type Env = z.infer<typeof schema>;

/** Every variable the schema reads (test/config/env-example.test.ts checks each is in `.env.example`). */
export const CONFIG_VARIABLES = Object.keys(schema.shape);

/** Inbound webhook secrets: generated locally, required in production. */
const WEBHOOK_SECRETS = [
  "STEWARD_WEBHOOK_SECRET",
  "CLOUD_WEBHOOK_SECRET",
  "CODE_HOST_WEBHOOK_SECRET",
  "AGENT_EVENTS_WEBHOOK_SECRET",
] as const;

export type Config = Env & {
  /** Absolute data directory. */
  dataDir: string;
  /** True when no BSC RPC is configured: the service runs its own devnet. */
  devnet: boolean;
  /** The RPC URLs the service uses (the devnet's when `devnet`). */
  rpcUrls: string[];
  apiUrl: string;
  wsUrl: string;
  /** The port `launchpad web` listens on: WEB_PORT, else WEB_URL's own port. */
  webPort: number;
  /** Every launched token's tax terms (TOKEN_TAX_*), as four.meme's create API takes them. */
  tokenTerms: TokenTerms;
  /** LAUNCH_FIRST_BUY_MAX_BNB in wei: the cap of an agent's first buy at launch. */
  firstBuyMaxWei: bigint;
};

/** A configuration problem, reported as one line naming the variable. */
export class ConfigError extends LaunchpadError<"CONFIG_INVALID"> {
  override name = "ConfigError";
  readonly variable: string;
  constructor(variable: string, message: string, options?: { cause?: unknown }) {
    super("CONFIG_INVALID", {
      message: `${variable}: ${message}`,
      details: { variable },
      cause: options?.cause,
    });
    this.variable = variable;
  }
}

/** Reads `.env` from `cwd` into a plain object; variables already set are not overridden. */
export function readDotEnv(cwd = process.cwd()): Record<string, string> {
  const path = resolve(cwd, ".env");
  if (!existsSync(path)) return {};
  return parseEnv(readFileSync(path, "utf8")) as Record<string, string>;
}

/**
 * Parses and validates the configuration.
 *
 * @example
 * const config = loadConfig(); // throws ConfigError("PORT: must be between 1 and 65535")
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
  /** Where the warning of a renamed variable goes; by default stderr, once per process. */
  warn?: (message: string, old: string) => void,
): Config {
  const merged: Record<string, string | undefined> = { ...readDotEnv(cwd), ...env };
  // An empty variable means "unset", as in most shells' `VAR= cmd` idiom.
  for (const key of Object.keys(merged)) if (merged[key] === "") delete merged[key];
  renameVariables(merged, warn);
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? "config");
    throw new ConfigError(variable, issue?.message ?? "invalid");
  }
  const e = parsed.data;
  // An origin the operator names is one an agent's URL may reach; in production only over TLS,
  // so a launch image is never fetched in the clear.
  if (
    e.LAUNCHPAD_ENV === "production" &&
    e.LAUNCH_IMAGE_TRUSTED_ORIGINS?.some((u) => !u.startsWith("https://"))
  ) {
    throw new ConfigError(
      "LAUNCH_IMAGE_TRUSTED_ORIGINS",
      "must be https origins in production (an http origin is a local-mode relaxation)",
    );
  }
  if (e.LAUNCHPAD_ENV === "production" && e.OUTBOUND_WEBHOOK_TRUSTED_ORIGINS?.length) {
    throw new ConfigError(
      "OUTBOUND_WEBHOOK_TRUSTED_ORIGINS",
      "is a local-mode relaxation, refused in production",
    );
  }
  if (e.LAUNCHPAD_ENV === "production") {
    for (const v of WEBHOOK_SECRETS) {
      if (!e[v]) throw new ConfigError(v, "must be set in production (inbound webhook secret)");
    }
  }
  if (e.STEWARD_URL) {
    // A real Steward authenticates the tenant by key and id: neither has a usable default.
    for (const v of ["STEWARD_API_KEY", "STEWARD_TENANT_ID", "STEWARD_WEBHOOK_SECRET"] as const) {
      if (!e[v]) throw new ConfigError(v, "must be set with STEWARD_URL");
    }
  }
  if (e.X_OAUTH_URL && (!e.X_CLIENT_ID || !e.X_CLIENT_SECRET)) {
    throw new ConfigError(
      e.X_CLIENT_ID ? "X_CLIENT_SECRET" : "X_CLIENT_ID",
      "must be set with X_OAUTH_URL",
    );
  }
  const tokenTerms: TokenTerms = {
    feeRate: e.TOKEN_TAX_FEE_RATE,
    burnRate: e.TOKEN_TAX_BURN_RATE,
    divideRate: e.TOKEN_TAX_DIVIDE_RATE,
    liquidityRate: e.TOKEN_TAX_LIQUIDITY_RATE,
    recipientRate: e.TOKEN_TAX_RECIPIENT_RATE,
    minSharing: e.TOKEN_TAX_MIN_SHARING,
  };
  // four.meme would refuse these at every launch: refuse them now. The recipient is a Safe.
  const termsProblem = taxInfoProblem({ ...tokenTerms, recipientAddress: `0x${"1".repeat(40)}` });
  if (termsProblem) throw new ConfigError(termsVariable(termsProblem), termsProblem);
  const devnet = !e.BSC_RPC_URL || e.BSC_RPC_URL.length === 0;
  const firstBuyMaxWei = parseEther(e.LAUNCH_FIRST_BUY_MAX_BNB);
  // A first buy that fills the curve would graduate the token inside createToken: the cap stays
  // below the raise (24 BNB, four.meme's fixed BNB raise; the devnet's own on the devnet).
  const raiseBnb = devnet ? e.DEVNET_MAX_RAISING_BNB : FOUR_MEME_BNB_RAISE;
  if (firstBuyMaxWei >= parseEther(String(raiseBnb)))
    throw new ConfigError(
      "LAUNCH_FIRST_BUY_MAX_BNB",
      `must be below the curve's raise of ${raiseBnb} BNB (a first buy that fills the curve graduates the token at once)`,
    );
  const devnetUrl =
    (e.LAUNCHPAD_ENV === "test" && e.LAUNCHPAD_TEST_DEVNET_RPC_URL) ||
    `http://${e.DEVNET_HOST}:${e.DEVNET_PORT}`;
  const apiUrl = e.PUBLIC_BASE_URL?.replace(/\/$/, "") ?? `http://${displayHost(e.HOST)}:${e.PORT}`;
  return {
    ...e,
    dataDir: resolve(cwd, e.LAUNCHPAD_DATA_DIR),
    devnet,
    rpcUrls: devnet ? [devnetUrl] : (e.BSC_RPC_URL ?? []),
    apiUrl,
    wsUrl: `${apiUrl.replace(/^http/, "ws")}/ws`,
    webPort: e.WEB_PORT ?? webUrlPort(e.WEB_URL),
    tokenTerms,
    firstBuyMaxWei,
  };
}

/**
 * A role that writes or announces the API's URL needs the public one in production: without it
 * `apiUrl` is HOST:PORT (`http://127.0.0.1:3001`), which a worker would write into an agent's
 * on-chain identity URI for good. `why` says what the role does with it.
 *
 * @example
 * requirePublicBaseUrl(config, "the worker writes it into each agent's on-chain identity URI");
 */
export function requirePublicBaseUrl(config: Config, why: string): void {
  if (config.LAUNCHPAD_ENV === "production" && !config.PUBLIC_BASE_URL)
    throw new ConfigError("PUBLIC_BASE_URL", `must be set in production: ${why}`);
}

/**
 * A role that seals or opens stored secrets (outbound webhook secrets: the API stores them, the
 * worker signs with them; four.meme logins the worker keeps per wallet) needs the one shared key in production: a key generated into each
 * host's data directory would leave a worker unable to open what an API on another host sealed.
 *
 * @example
 * requireSecretsKey(config);
 */
export function requireSecretsKey(config: Config): void {
  if (config.LAUNCHPAD_ENV === "production" && !config.SECRETS_KEY)
    throw new ConfigError(
      "SECRETS_KEY",
      "must be set in production, the same on every API and worker (it seals outbound webhook secrets and four.meme logins)",
    );
}

/** The TOKEN_TAX_* variable a refusal names (the sum names the recipient share). */
function termsVariable(problem: string): string {
  if (problem.startsWith("feeRate")) return "TOKEN_TAX_FEE_RATE";
  if (problem.startsWith("minSharing")) return "TOKEN_TAX_MIN_SHARING";
  return "TOKEN_TAX_RECIPIENT_RATE";
}

function webUrlPort(url: string): number {
  const u = new URL(url);
  return u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
}

/** The address to reach a server bound to `host` from this machine (wildcards mean loopback). */
export function displayHost(host: string): string {
  return host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
}
