/** The reference's version, reported by the stand-in's `about` (docs/upstreams.md). */
export const VERSION = "6.10.1";

/** The service's `GET /api/v1/about/` answer, with the stand-in's settings. */
export function about(url: string, host: string | undefined, rpcUrl: string | undefined) {
  return {
    name: "Safe Transaction Service",
    version: VERSION,
    api_version: "v1",
    secure: new URL(url).protocol === "https:",
    host: host ?? "",
    headers: [],
    settings: {
      AWS_CONFIGURED: false,
      AWS_S3_PUBLIC_URL: "",
      ETHEREUM_NODE_URL: rpcUrl ?? "",
      ETHEREUM_TRACING_NODE_URL: null,
      ETH_EVENTS_BLOCK_PROCESS_LIMIT: 50,
      ETH_EVENTS_BLOCK_PROCESS_LIMIT_MAX: 0,
      ETH_EVENTS_QUERY_CHUNK_SIZE: 1000,
      ETH_EVENTS_UPDATED_BLOCK_BEHIND: 24 * 60 * 60,
      ETH_INTERNAL_NO_FILTER: false,
      ETH_INTERNAL_TRACE_TXS_BATCH_SIZE: 0,
      ETH_INTERNAL_TXS_BLOCK_PROCESS_LIMIT: 10_000,
      ETH_L2_NETWORK: true,
      ETH_REORG_BLOCKS: 10,
      SSO_ENABLED: false,
      TOKENS_LOGO_BASE_URI: "",
      TOKENS_LOGO_EXTENSION: ".png",
    },
  };
}
