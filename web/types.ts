// The shapes the pages read, as the API documents them (`/openapi.json`): only the fields the
// web app uses. Declared here rather than imported from api/, which the web role never loads.

export type TokenRecord = {
  address: string;
  name: string | null;
  symbol: string | null;
  creator: string;
  treasury: string;
  agentId: string | null;
  image: string | null;
  description: string | null;
  status: "registered" | "curve" | "graduated";
  pair: string;
  totalSupply: string;
  price: string;
  priceUsd: string | null;
  marketCap: string;
  marketCapUsd: string | null;
  holderCount: number;
  volume: string;
  tradeCount: number;
  volume24hBnb: string;
  volume24hUsd: string;
  priceChange24h: number | null;
  trades24h: number;
  liquidityBnb: string | null;
  liquidityUsd: string | null;
  raised: string;
  maxRaising: string;
  curveProgressBps: number;
  createdAt: string | null;
  graduatedAt: string | null;
  /** BNB wei its tax brought its treasury and holders: the `taxIncome` sort's key. */
  taxIncomeBnb: string;
};

export type Link = { label: string; url: string };

/** A launch report's per-buyer figures (`GET /tokens/{address}/launch-report`). */
export type LaunchReportBuys = {
  buys: number;
  firstBlockOffset: number;
  tokenAmount: string;
  bnbAmount: string;
  shareBps: number;
};

/** `GET /tokens/{address}/launch-report`: the token's first blocks, its buyers and bundles. */
export type LaunchReport = {
  token: string;
  creator: string;
  createdBlock: string;
  antiSniper: boolean | null;
  windowBlocks: number;
  windowEndBlock: string;
  fundingLookbackBlocks: number;
  final: boolean;
  creatorBuy: LaunchReportBuys | null;
  buyers: (LaunchReportBuys & {
    account: string;
    fundedBy: { funder: string; amount: string; blockNumber: string; txHash: string }[];
  })[];
  bundles: {
    funder: string;
    funderIsCreator: boolean;
    wallets: string[];
    fundedWei: string;
    tokenAmount: string;
    bnbAmount: string;
    shareBps: number;
  }[];
  totals: {
    buyers: number;
    tokenAmount: string;
    bnbAmount: string;
    shareBps: number;
    bundledWallets: number;
    bundledTokenAmount: string;
    bundledShareBps: number;
  };
};

export type AgentDetail = {
  agentId: string;
  name: string;
  ticker: string;
  tokenAddress: string;
  status: string;
  agentPageUrl: string;
  description: string;
  imageUrl: string;
  walletAddress: string | null;
  treasuryAddress: string | null;
  eip8004TokenId: string | null;
  launchpadUrl: string;
  launchedAt: string | null;
  /** The agent's first buy at launch, as indexed; null without one. */
  firstBuy: { tokenAmount: string; bnbAmount: string; fee: string; txHash: string } | null;
  persona: {
    name: string;
    handle: string | null;
    bio: string;
    links: Link[];
    imageUrl: string | null;
  } | null;
  apps: {
    appId: string;
    name: string;
    url: string;
    description: string;
    revenue: { address: string | null; shareBps: number | null };
  }[];
  featured: boolean;
  featuredCount: number;
  wallets: {
    chain: string;
    address: string;
    role: string;
    label: string | null;
    builtIn: boolean;
  }[];
  identity: {
    eip8004TokenId: string;
    owner: string;
    agentURI: string;
    agentWallet: string | null;
    treasury: string | null;
    metadata: Record<string, string>;
    linkedBlock: string;
  } | null;
  policy: { policyId: string; version: number; rules: Record<string, unknown> } | null;
  policyStatus: "active" | "none" | "unavailable";
};

export type AgentSummary = Pick<
  AgentDetail,
  "agentId" | "name" | "ticker" | "tokenAddress" | "status" | "agentPageUrl"
> & {
  launchedAt: string | null;
  ageSeconds: number | null;
  treasuryUsd: string | null;
  monthlyBurnUsd: string | null;
  runwayDays: string | null;
  runwayAsOf: { block: string; time: string } | null;
};

/** `GET /v2/stats`. */
export type PlatformStats = {
  agents: number;
  tokens: { launched: number; graduated: number };
  depositLaunches: { total: number; launched: number; raisedBnb: string };
  volume: { bnb24h: string; usd24h: string; bnbTotal: string; usdTotal: string };
  indexedBlock: string;
  indexedAt: string;
};

export type AssetHolding = {
  asset: string;
  chain: string;
  token: string | null;
  decimals: number;
  amount: string;
  priceUsd: string | null;
  valueUsd: string;
};

export type SourceHoldings = {
  status: "ok" | "not_connected" | "unavailable";
  address: string | null;
  assets: AssetHolding[];
  totalUsd: string;
  reason?: string;
};

export type Holdings = {
  asOf: { block: string; time: string };
  totalUsd: string;
  sources: {
    agentSafe: SourceHoldings;
    hot: SourceHoldings;
    hyperliquid: SourceHoldings;
    aggregated: { assets: AssetHolding[]; totalUsd: string };
  };
};

export type NavPoint = { t: string; status: "ok" | "missing"; navUsd: string | null };

export type BurnRate = {
  windowDays: number;
  items: {
    provider: string;
    kind: string;
    monthlyUsd: string;
    usageBased: boolean;
    configured: boolean;
    label: string | null;
  }[];
  monthlyUsd: string;
  treasuryUsd: string;
  holdingsUsd: string;
  runwayDays: string | null;
};

export type Launch = {
  id: string;
  vault: string;
  treasury: string;
  predictedToken: string;
  token: string | null;
  pair: string | null;
  tier: string;
  creator: string;
  name: string | null;
  symbol: string | null;
  closeTimestamp: string;
  buyTaxBps: number;
  sellTaxBps: number;
  status: "open" | "closed" | "launched" | "refund";
  totalDeposited: string;
  depositorCount: number;
  totalClaimed: string;
  totalRefunded: string;
  tokensForDepositors: string | null;
  liquidityBnb: string | null;
  createdAt: string;
};

export type Depositor = { account: string; principal: string; claimed: string; refunded: string };

export type OffsetList<T> = { items: T[]; total: number; limit: number; offset: number };
export type CursorList<T> = { items: T[]; nextCursor: string | null };

/** GET /v2/agents/{agent}/perps (api/perps/routes.ts). */
export type PerpsAccount = {
  address: string | null;
  status: "ok" | "pending" | "not_connected";
  asOf: string | null;
  accountValue: string;
  withdrawable: string;
  positions: {
    coin: string;
    side: "long" | "short";
    size: string;
    entryPrice: string;
    markPrice: string | null;
    leverage: { type: string; value: number };
    liquidationPrice: string | null;
    unrealizedPnl: string;
  }[];
  pnl: { realized: string; fees: string; unrealized: string; total: string };
  trades: { fills: number; wins: number; losses: number };
};

/** An item of GET /v2/users/{address}/launches. */
export type UserLaunch = Launch & {
  created: boolean;
  deposited: string;
  withdrawn: string;
  principal: string;
  allocation: string | null;
  claimed: string;
  claimable: string;
  refundable: string;
  vestedBps: number;
};
