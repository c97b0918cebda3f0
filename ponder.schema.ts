import { index, onchainEnum, onchainTable, primaryKey } from "ponder";

// Every amount is wei (bigint, numeric(78) in Postgres); every price is BNB wei per whole token
// (1e18 token units), floored. No floats anywhere. Addresses are lowercase hex.

export const tokenStatus = onchainEnum("token_status", ["registered", "curve", "graduated"]);
export const tokenOrigin = onchainEnum("token_origin", ["registry", "launch"]);
export const venue = onchainEnum("venue", ["curve", "dex"]);
export const side = onchainEnum("side", ["buy", "sell"]);
export const launchStatus = onchainEnum("launch_status", ["open", "closed", "launched", "refund"]);

/** A service token: registered in the ServiceRegistry, or created by a deposit launch. */
export const token = onchainTable(
  "token",
  (t) => ({
    address: t.hex().primaryKey(),
    origin: tokenOrigin("origin").notNull(),
    name: t.text(),
    symbol: t.text(),
    creator: t.hex().notNull(),
    treasury: t.hex().notNull(),
    agentId: t.bigint(),
    /** CREATE2 pair with WBNB (known before it exists). */
    pair: t.hex().notNull(),
    /** Deposit launches: the vault. */
    launchVault: t.hex(),
    totalSupply: t.bigint().notNull().default(0n),
    launchTime: t.bigint(),
    launchFee: t.bigint(),
    status: tokenStatus("status").notNull(),
    /** Spot (marginal) price: the curve's at creation, then after each trade (curve `price`, or pair reserves). */
    lastPrice: t.bigint().notNull().default(0n),
    /** BNB wei at which the curve graduates (`_tokenInfos.maxRaising`); null for deposit launches. */
    maxRaising: t.bigint(),
    /** Created in four.meme's AntiSniperFeeMode (`_tokenInfoEx1s.feeSetting > 0`); null for deposit launches. */
    antiSniper: t.boolean(),
    /** BNB raised on the curve (`funds`); 0 for deposit launches. */
    funds: t.bigint().notNull().default(0n),
    /** Tokens left on the curve (`offers`). */
    offers: t.bigint().notNull().default(0n),
    totalVolumeBnb: t.bigint().notNull().default(0n),
    tradeCount: t.integer().notNull().default(0),
    holderCount: t.integer().notNull().default(0),
    marketCapBnb: t.bigint().notNull().default(0n),
    registeredBlock: t.bigint().notNull(),
    createdBlock: t.bigint(),
    createdAt: t.bigint(),
    createdTx: t.hex(),
    /** Log index of the mint Transfer: with createdTx, the stable id of the launch event. */
    createdLogIndex: t.integer(),
    graduatedBlock: t.bigint(),
    graduatedAt: t.bigint(),
    /** The LiquidityAdded log that graduated the token (the feed's launch.graduated event). */
    graduatedTx: t.hex(),
    graduatedLogIndex: t.integer(),
    // --- Market data ---
    /** Spot price at creation: the reference of priceChange24h before the first trade. */
    initialPrice: t.bigint(),
    /** Unix seconds of the last trade. */
    lastTradeAt: t.bigint(),
    /** Pair reserves after the last pair event the indexer saw (graduated and launched tokens). */
    liquidityBnb: t.bigint(),
    liquidityToken: t.bigint(),
  }),
  // --- Market data: keyset indexes of the `/tokens` sorts ---
  (t) => ({
    newIdx: index().on(t.registeredBlock, t.address),
    marketCapIdx: index().on(t.marketCapBnb, t.address),
    volumeIdx: index().on(t.totalVolumeBnb, t.address),
    creatorIdx: index().on(t.creator),
  }),
);

/** One trade, curve or DEX. id = `${chainId}:${txHash}:${logIndex of the trade log}`. */
export const trade = onchainTable(
  "trade",
  (t) => ({
    id: t.text().primaryKey(),
    token: t.hex().notNull(),
    venue: venue("venue").notNull(),
    side: side("side").notNull(),
    account: t.hex().notNull(),
    tokenAmount: t.bigint().notNull(),
    /** Gross BNB of the trade before fees: the curve's `cost`, or the pair's WBNB in/out. */
    bnbAmount: t.bigint().notNull(),
    /** Curve protocol fee; 0 on the DEX (its LP fee is inside the amounts). */
    fee: t.bigint().notNull(),
    /** Execution price: bnbAmount * 1e18 / tokenAmount, floored. */
    price: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    txHash: t.hex().notNull(),
    timestamp: t.bigint().notNull(),
    // --- Market data ---
    /** Spot (marginal) price after the trade: the reference of priceChange24h. */
    spot: t.bigint().notNull(),
    /** USD per BNB (1e18 = 1 USD) of the latest feed answer at the trade; null before any. */
    bnbUsd: t.bigint(),
  }),
  (t) => ({
    tokenOrder: index().on(t.token, t.blockNumber, t.logIndex),
    // --- Market data: 24-hour windows, per token and across tokens ---
    tokenTime: index().on(t.token, t.timestamp),
    time: index().on(t.timestamp),
    // The WebSocket bridge tails every trade in chain order (api/ws/view-tail.ts).
    chainOrder: index().on(t.blockNumber, t.logIndex),
  }),
);

/**
 * OHLC of execution prices per token and interval (1m 5m 15m 1h 4h 1d), bucketStart in unix s.
 * The *Usd columns are the same in USD (1e18 = 1 USD per whole token), each trade priced at the
 * BNB/USD answer current at it; null while no trade in the bucket had a feed answer.
 */
export const candle = onchainTable(
  "candle",
  (t) => ({
    token: t.hex().notNull(),
    interval: t.text().notNull(),
    bucketStart: t.bigint().notNull(),
    open: t.bigint().notNull(),
    high: t.bigint().notNull(),
    low: t.bigint().notNull(),
    close: t.bigint().notNull(),
    volumeBnb: t.bigint().notNull(),
    volumeToken: t.bigint().notNull(),
    tradeCount: t.integer().notNull(),
    // --- Market data ---
    openUsd: t.bigint(),
    highUsd: t.bigint(),
    lowUsd: t.bigint(),
    closeUsd: t.bigint(),
    volumeUsd: t.bigint().notNull().default(0n),
  }),
  (t) => ({
    pk: primaryKey({ columns: [t.token, t.interval, t.bucketStart] }),
    // The 24-hour sorts: the 1h buckets of the window across all tokens.
    timeIdx: index().on(t.interval, t.bucketStart),
  }),
);

/** Balance per (token, account); rows stay at zero once an account sold out. */
export const holder = onchainTable(
  "holder",
  (t) => ({
    token: t.hex().notNull(),
    account: t.hex().notNull(),
    balance: t.bigint().notNull(),
    // --- Market data ---
    /** Accounts holding for the market: "curve", "pair", "vault", "burn"; null for holders. */
    role: t.text(),
  }),
  (t) => ({
    pk: primaryKey({ columns: [t.token, t.account] }),
    // --- Market data: top holders ---
    topIdx: index().on(t.token, t.balance, t.account),
  }),
);

/**
 * The launch report's buyers (lib/launch-report.ts): every account other than the creator that
 * bought a registered token on its curve in the creation block or the LAUNCH_REPORT.windowBlocks
 * after it, with its first such buy. Their BNB funding just before is `launch_funding`.
 */
export const launchBuyer = onchainTable(
  "launch_buyer",
  (t) => ({
    token: t.hex().notNull(),
    account: t.hex().notNull(),
    firstBuyBlock: t.bigint().notNull(),
    firstBuyTx: t.hex().notNull(),
  }),
  (t) => ({ pk: primaryKey({ columns: [t.token, t.account] }) }),
);

/**
 * BNB sent to a launch buyer by a plain transaction (`to` the buyer, a value) in the
 * LAUNCH_REPORT.fundingLookbackBlocks before its first buy, or earlier in that buy's block.
 * id = `${token}:${txHash}`. BNB sent from inside a contract call (a disperse contract) leaves
 * no transaction to the buyer and is not here.
 */
export const launchFunding = onchainTable(
  "launch_funding",
  (t) => ({
    id: t.text().primaryKey(),
    token: t.hex().notNull(),
    /** The buyer funded. */
    wallet: t.hex().notNull(),
    funder: t.hex().notNull(),
    amount: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    txHash: t.hex().notNull(),
  }),
  (t) => ({ tokenIdx: index().on(t.token) }),
);

/** ERC-8004 identities linked to a service token (ServiceTokenRegistered.agentId). */
export const identity = onchainTable("identity", (t) => ({
  agentId: t.bigint().primaryKey(),
  owner: t.hex().notNull(),
  agentURI: t.text().notNull(),
  agentWallet: t.hex(),
  treasury: t.hex(),
  /** metadataKey -> 0x value, as set by MetadataSet after the link. */
  metadata: t.json().$type<Record<string, string>>().notNull(),
  linkedBlock: t.bigint().notNull(),
}));

/**
 * Every ERC-8004 identity the registry's events have shown (linked or not): what a link
 * snapshots into `identity` without a contract read at the link's block.
 */
export const registryAgent = onchainTable("registry_agent", (t) => ({
  agentId: t.bigint().primaryKey(),
  /** Null once burned (ownerOf reverts). */
  owner: t.hex(),
  agentURI: t.text().notNull(),
  agentWallet: t.hex(),
}));

/** History of a linked identity: its link to the token (kind `linked`), uri, metadata, owner changes. */
export const identityChange = onchainTable("identity_change", (t) => ({
  id: t.text().primaryKey(),
  agentId: t.bigint().notNull(),
  kind: t.text().notNull(),
  key: t.text(),
  value: t.text(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
  txHash: t.hex().notNull(),
}));

/** Wallets whose activity feeds `wallet_activity`: agent wallets and treasuries. */
export const watchedWallet = onchainTable("watched_wallet", (t) => ({
  address: t.hex().primaryKey(),
  role: t.text().notNull(),
  agentId: t.bigint(),
  token: t.hex(),
}));

/** Chain-derived agent activity (source `evm-indexer:bsc`). */
export const walletActivity = onchainTable(
  "wallet_activity",
  (t) => ({
    /** `${chainId}:${txHash}:${logIndex}` (+ `:in`/`:out` for transfers, `:bnb` for the BNB a Safe execution sent). */
    id: t.text().primaryKey(),
    source: t.text().notNull(),
    wallet: t.hex().notNull(),
    role: t.text().notNull(),
    agentId: t.bigint(),
    kind: t.text().notNull(),
    token: t.hex(),
    counterparty: t.hex(),
    amount: t.bigint(),
    safeTxHash: t.hex(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    txHash: t.hex().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (t) => ({ walletIdx: index().on(t.wallet, t.blockNumber) }),
);

/**
 * Tax income of a service token (four.meme TaxToken, fourmeme-docs tax-guide.md): the sums of its
 * `FeeDispatched` and `FeeClaimed` logs. Token amounts are the tax split at each dispatch; the
 * quote amounts are what the split brought in BNB wei (the founder's is sent to the treasury at
 * once, the holders' is kept by the token as WBNB until each holder claims it).
 */
export const tokenTax = onchainTable(
  "token_tax",
  (t) => ({
    token: t.hex().primaryKey(),
    dispatchCount: t.integer().notNull(),
    amountFounder: t.bigint().notNull(),
    amountHolder: t.bigint().notNull(),
    amountBurn: t.bigint().notNull(),
    amountLiquidity: t.bigint().notNull(),
    quoteFounder: t.bigint().notNull(),
    quoteHolder: t.bigint().notNull(),
    /** quoteFounder + quoteHolder: the key of the `taxIncome` sort. */
    incomeBnb: t.bigint().notNull(),
    claimCount: t.integer().notNull(),
    /** Sum of `FeeClaimed` amounts: holders' dividends paid out. */
    claimed: t.bigint().notNull(),
  }),
  (t) => ({ incomeIdx: index().on(t.incomeBnb, t.token) }),
);

/** One holder's dividend claim (`FeeClaimed`). id = `${chainId}:${txHash}:${logIndex}`. */
export const dividendClaim = onchainTable(
  "dividend_claim",
  (t) => ({
    id: t.text().primaryKey(),
    token: t.hex().notNull(),
    account: t.hex().notNull(),
    amount: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    txHash: t.hex().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (t) => ({
    // GET /v2/users/{address}/dividends: one account's claims per token.
    accountIdx: index().on(t.account, t.token),
  }),
);

/** A deposit launch, keyed by its vault. */
export const launch = onchainTable(
  "launch",
  (t) => ({
    vault: t.hex().primaryKey(),
    id: t.bigint().notNull(),
    router: t.hex().notNull(),
    treasury: t.hex().notNull(),
    predictedToken: t.hex().notNull(),
    token: t.hex(),
    pair: t.hex(),
    tier: t.integer().notNull(),
    creator: t.hex().notNull(),
    name: t.text(),
    symbol: t.text(),
    metadata: t.text(),
    closeTimestamp: t.bigint().notNull(),
    buyTaxBps: t.integer().notNull(),
    sellTaxBps: t.integer().notNull(),
    totalDeposited: t.bigint().notNull(),
    /** Accounts that ever deposited (the vault's list; a full withdrawal keeps the entry). */
    depositorCount: t.integer().notNull(),
    status: launchStatus("status").notNull(),
    refundReason: t.integer(),
    totalClaimed: t.bigint().notNull(),
    totalRefunded: t.bigint().notNull(),
    tokensForDepositors: t.bigint(),
    liquidityBnb: t.bigint(),
    liquidityTokens: t.bigint(),
    createdBlock: t.bigint().notNull(),
    createdAt: t.bigint().notNull(),
  }),
  (t) => ({ creatorIdx: index().on(t.creator) }),
);

export const depositor = onchainTable(
  "depositor",
  (t) => ({
    vault: t.hex().notNull(),
    account: t.hex().notNull(),
    principal: t.bigint().notNull(),
    claimed: t.bigint().notNull(),
    refunded: t.bigint().notNull(),
  }),
  (t) => ({
    pk: primaryKey({ columns: [t.vault, t.account] }),
    // GET /v2/users/{address}/launches: one account's positions across launches.
    accountIdx: index().on(t.account, t.vault),
  }),
);

export const launchEvent = onchainTable(
  "launch_event",
  (t) => ({
    id: t.text().primaryKey(),
    vault: t.hex().notNull(),
    kind: t.text().notNull(),
    account: t.hex(),
    amount: t.bigint(),
    totalDeposited: t.bigint(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    txHash: t.hex().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  // GET /v2/users/{address}/launches: one account's deposits and withdrawals per launch.
  (t) => ({ accountIdx: index().on(t.account, t.vault) }),
);

export const bnbUsd = onchainTable("bnb_usd", (t) => ({
  round: t.bigint().primaryKey(),
  /** USD per BNB with `decimals` decimals. */
  answer: t.bigint().notNull(),
  decimals: t.integer().notNull(),
  updatedAt: t.bigint().notNull(),
  blockNumber: t.bigint().notNull(),
}));

// --- Market data ---

/** The BNB/USD answer current at the indexed head: one row, id "latest". */
export const bnbUsdLatest = onchainTable("bnb_usd_latest", (t) => ({
  id: t.text().primaryKey(),
  round: t.bigint().notNull(),
  /** USD per BNB, 1e18 = 1 USD (the answer rescaled from the feed's decimals). */
  rate: t.bigint().notNull(),
  blockNumber: t.bigint().notNull(),
}));

/**
 * USDC transfers on Arbitrum (the second chain, when configured): the projector keeps those
 * into and out of the agents' perps deposit addresses (`bridge.completed`, `perps.deposit.sent`).
 * Amounts are USDC base units (6 decimals). id `${chainId}:${txHash}:${logIndex}`.
 */
export const usdcTransfer = onchainTable(
  "usdc_transfer",
  (t) => ({
    id: t.text().primaryKey(),
    chainId: t.integer().notNull(),
    from: t.hex().notNull(),
    to: t.hex().notNull(),
    amount: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    txHash: t.hex().notNull(),
  }),
  (t) => ({
    fromIdx: index().on(t.from, t.blockNumber),
    toIdx: index().on(t.to, t.blockNumber),
  }),
);
