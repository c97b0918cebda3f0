// What a signing call asks for, once decoded: the evaluators judge intents, never raw bytes.
// Decoders (spot.ts for BSC transactions, perps.ts for venue order actions) turn a request and
// a snapshot of state into one intent; anything they cannot read becomes `unknown`.

export type Side = "long" | "short";

/** What every intent carries for the feed and the auditor: exact strings. */
type Summarized = { summary: Record<string, string> };

/** Opening or adding to a position, or reducing/closing one. */
export type TradeIntent = Summarized & {
  kind: "trade";
  /** May name a venue no policy knows: the venue evaluator fails it closed. */
  venue: string;
  /** Perps coin ("BTC") or BSC token address (lowercase). */
  asset: string;
  side: Side;
  action: "open" | "close";
  /** New notional this call opens, USD with 18 decimals (0 for a close). */
  notionalUsd: bigint;
  /** Leverage of the resulting position (1 on spot). */
  leverage: number;
};

/** Setting the leverage of a market on a perps venue. */
export type LeverageIntent = Summarized & {
  kind: "leverage";
  venue: string;
  asset: string;
  leverage: number;
};

/** ERC-20 approve, ERC-20 transfer or a plain BNB transfer from the agent wallet. */
export type MoveIntent = Summarized & {
  kind: "approve" | "transfer";
  /** The spender or recipient. */
  to: string;
  /** The token (absent: BNB). */
  token?: string;
  amount: string;
};

/** A call to one of the platform's own contracts (the launch: identity, token creation). */
export type PlatformIntent = Summarized & { kind: "platform" };

/** A plain message signature (a launchpad login). */
export type MessageIntent = Summarized & { kind: "message" };

/** Anything the signer cannot read: never signed. */
export type UnknownIntent = Summarized & {
  kind: "unknown";
  /** Held for a person (policy.needs_manual) rather than refused outright. */
  manual: boolean;
  code: string;
  reason: string;
};

export type Intent =
  | TradeIntent
  | LeverageIntent
  | MoveIntent
  | PlatformIntent
  | MessageIntent
  | UnknownIntent;

/** An open position as the signer sees it (a perps position or a spot holding it bought). */
export type OpenPosition = {
  venue: string;
  asset: string;
  side: Side;
  /** Notional at the venue's mark price, USD with 18 decimals. */
  notionalUsd: bigint;
};

/** A realized PnL amount (a close), for the loss cooldown. */
export type RealizedPnl = { at: Date; usd: bigint };

/** What the evaluators may know besides the intent and the policy: a snapshot, taken once. */
export type PolicyState = {
  now: Date;
  positions: readonly OpenPosition[];
  /** New notional opened since the last UTC midnight (closes excluded), USD 18 decimals. */
  openedTodayUsd: bigint;
  /** Realized PnL of closes, at least the last loss window plus today. */
  realized: readonly RealizedPnl[];
};
