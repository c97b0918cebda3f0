import { parseEther } from "viem";
import { type Config, FOUR_MEME_BNB_RAISE } from "../lib/config.ts";
import { webServiceKey } from "../lib/endpoints.ts";
import type { TokenTerms } from "../lib/token-terms.ts";

/** four.meme's BNB curves graduate at 24 BNB raised (the devnet uses DEVNET_MAX_RAISING_BNB). */
const MAINNET_MAX_RAISING_WEI = parseEther(String(FOUR_MEME_BNB_RAISE));

/** What the routes need from the configuration, and nothing else. */
export type ApiSettings = {
  /** Schema of Ponder's published views: the only place chain data is read from. */
  viewsSchema: string;
  /** The web app's base URL: the CORS origin and agent pages `{webUrl}/agent/<token>`. */
  webUrl: string;
  /** The API's public base URL and WebSocket URL, as written in AGENT.md. */
  apiUrl: string;
  wsUrl: string;
  /** Link to a token on the launchpad; `{address}` is replaced by the token address. */
  launchpadTokenUrl: string;
  /** Reverse proxies whose `X-Forwarded-For` entries are trusted (0: the socket's peer). */
  trustProxy: number;
  /** JSON-RPC URLs of the chain, for the head block in the indexer status. */
  rpcUrls: string[];
  /** JSON-RPC URL of the second chain (Arbitrum), when the index holds it. */
  arbitrumRpcUrl?: string;
  /** BNB (wei) a curve raises before it graduates: the denominator of curve progress. */
  curveMaxRaisingWei: bigint;
  /** Requests per minute; defaults from RATE_LIMITS; 0 turns a limit off. */
  rateLimit?: { unauthenticated?: number; authenticated?: number; service?: number };
  /** The web role's credential (`X-Service-Key`) for its own budget; unset: none is honoured. */
  serviceKey?: string;
  /** The tax terms launched tokens get (TOKEN_TAX_*), as AGENT.md states them; default: 3 %. */
  tokenTerms?: TokenTerms;
  /** The cap of a first buy at launch (LAUNCH_FIRST_BUY_MAX_BNB), as AGENT.md states it. */
  firstBuyMaxWei?: bigint;
};

/**
 * The API settings of a loaded configuration.
 *
 * @example
 * const app = createApp({ logger, env: config.LAUNCHPAD_ENV, sql, settings: apiSettings(config) });
 */
export function apiSettings(config: Config): ApiSettings {
  return {
    viewsSchema: config.VIEWS_SCHEMA,
    webUrl: config.WEB_URL.replace(/\/$/, ""),
    apiUrl: config.apiUrl,
    wsUrl: config.wsUrl,
    tokenTerms: config.tokenTerms,
    firstBuyMaxWei: config.firstBuyMaxWei,
    launchpadTokenUrl: config.LAUNCHPAD_TOKEN_URL,
    trustProxy: config.TRUST_PROXY,
    rpcUrls: config.rpcUrls,
    arbitrumRpcUrl: config.ARBITRUM_RPC_URL,
    curveMaxRaisingWei: config.devnet
      ? parseEther(String(config.DEVNET_MAX_RAISING_BNB))
      : MAINNET_MAX_RAISING_WEI,
    rateLimit: {
      unauthenticated: config.RATE_LIMIT_PER_MINUTE,
      authenticated: config.RATE_LIMIT_AUTHENTICATED_PER_MINUTE,
      service: config.RATE_LIMIT_SERVICE_PER_MINUTE,
    },
    serviceKey: webServiceKey(config),
  };
}

/** Settings for tests and tools: local URLs, the default views schema, no proxy. */
export function defaultApiSettings(overrides: Partial<ApiSettings> = {}): ApiSettings {
  return {
    viewsSchema: "onchain",
    webUrl: "http://localhost:3000",
    apiUrl: "http://127.0.0.1:3001",
    wsUrl: "ws://127.0.0.1:3001/ws",
    launchpadTokenUrl: "https://four.meme/token/{address}",
    trustProxy: 0,
    rpcUrls: [],
    curveMaxRaisingWei: parseEther("18"),
    ...overrides,
  };
}
