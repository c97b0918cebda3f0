// The API answers behind the holders' panels: the agent's sell pledge, a token's tax income and
// holders' dividends, and a wallet's dividends (api/policy/pledge.ts, api/dividends/).

/** One version of a sell pledge (`SellPledge`). */
export type PledgeVersion = {
  pledgeId: string;
  lockDays: number;
  maxDailySellPercent: string;
  loosenDelayDays: number;
  createdAt: string;
  effectiveAt: string;
  cancelledAt: string | null;
  createdBy: { kind: "agent" | "operator" | "signer"; id: string };
};

/** GET /v2/agents/{agent}/pledge. */
export type SellPledge = {
  inForce: PledgeVersion | null;
  pending: PledgeVersion | null;
  lockedUntil: string | null;
  soldTodayUnits: string;
  history: PledgeVersion[];
};

/** GET /tokens/{address}/tax. */
export type TokenTax = {
  token: string;
  dispatches: number;
  taxDispatched: {
    treasury: string;
    holders: string;
    burn: string;
    liquidity: string;
    total: string;
  };
  treasuryBnb: string;
  dividends: { accruedBnb: string; claimedBnb: string; unclaimedBnb: string; claims: number };
  incomeBnb: string;
  indexedBlock: string | null;
};

/** GET /v2/users/{address}/dividends. */
export type WalletDividends = {
  address: string;
  autoClaim: boolean;
  claimableBnb: string;
  claimedBnb: string;
  items: {
    token: string;
    name: string | null;
    symbol: string | null;
    claimableBnb: string;
    claimedBnb: string;
  }[];
  truncated: boolean;
  indexedBlock: string | null;
};

/** GET /v2/users/{address}/dividends/claim-transaction. */
export type DividendClaimTransaction = {
  address: string;
  claimableBnb: string;
  tokens: string[];
  transaction: { to: string; data: string; value: "0"; chainId: 56 } | null;
  indexedBlock: string | null;
};

/** The `dividendClaimed` message of the WebSocket channel `dividends.<address>`. */
export type DividendClaimed = {
  token: string;
  account: string;
  amountBnb: string;
  txHash: string;
  logIndex: number;
  blockNumber: string;
  timestamp: string;
};
