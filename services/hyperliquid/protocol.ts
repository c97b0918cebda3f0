import { createL1ActionHash, signL1Action as sdkSignL1Action } from "@nktkas/hyperliquid/signing";
import { type Hex, recoverTypedDataAddress } from "viem";
import type { LocalAccount } from "viem/accounts";
import { z } from "zod";

// Wire types of Hyperliquid's `POST /info` and `POST /exchange` (PROTOCOLS.md section 1),
// shared by the client, the pollers and the local stand-in. Numbers the venue sends as
// decimal strings stay strings here: floats lose cents when summed.

const Dec = z.string().regex(/^-?\d+(\.\d+)?$/, "must be a decimal string");
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const Hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);

const MarginSummary = z.object({
  accountValue: Dec,
  totalNtlPos: Dec,
  totalRawUsd: Dec,
  totalMarginUsed: Dec,
});

export const AssetPosition = z.object({
  type: z.literal("oneWay"),
  position: z.object({
    coin: z.string(),
    /** Signed size: negative is short. */
    szi: Dec,
    leverage: z.union([
      z.object({ type: z.literal("cross"), value: z.number() }),
      z.object({ type: z.literal("isolated"), value: z.number(), rawUsd: Dec }),
    ]),
    entryPx: Dec,
    positionValue: Dec,
    unrealizedPnl: Dec,
    returnOnEquity: Dec,
    liquidationPx: Dec.nullable(),
    marginUsed: Dec,
    maxLeverage: z.number(),
    cumFunding: z.object({ allTime: Dec, sinceOpen: Dec, sinceChange: Dec }),
  }),
});
export type AssetPosition = z.infer<typeof AssetPosition>;

/** `{"type":"clearinghouseState","user"}`: the perps account. */
export const ClearinghouseState = z.object({
  marginSummary: MarginSummary,
  crossMarginSummary: MarginSummary,
  crossMaintenanceMarginUsed: Dec,
  withdrawable: Dec,
  assetPositions: z.array(AssetPosition),
  time: z.number(),
});
export type ClearinghouseState = z.infer<typeof ClearinghouseState>;

/** One fill of `userFillsByTime`; `tid` is the venue's unique trade id. */
export const Fill = z.looseObject({
  coin: z.string(),
  px: Dec,
  sz: Dec,
  side: z.enum(["B", "A"]),
  time: z.number(),
  startPosition: Dec,
  /** "Open Long", "Close Long", "Open Short", "Close Short", "Long > Short", "Short > Long", … */
  dir: z.string(),
  closedPnl: Dec,
  hash: Hash,
  oid: z.number(),
  crossed: z.boolean(),
  fee: Dec,
  feeToken: z.string(),
  tid: z.number(),
  builderFee: Dec.optional(),
  /** The TWAP order a fill belongs to; null for ordinary orders (absent in old answers). */
  twapId: z.number().nullable().optional(),
  liquidation: z
    .object({
      liquidatedUser: Address.optional(),
      markPx: Dec,
      method: z.enum(["market", "backstop"]),
    })
    .optional(),
});
export type Fill = z.infer<typeof Fill>;

/** The `delta` variants of `userNonFundingLedgerUpdates` the service reads; others pass. */
export const LedgerDelta = z.union([
  z.object({ type: z.literal("deposit"), usdc: Dec }),
  z.object({ type: z.literal("withdraw"), usdc: Dec, nonce: z.number(), fee: Dec }),
  // USDC moved between the perps and spot balances of one account (`usdClassTransfer`).
  z.object({ type: z.literal("accountClassTransfer"), usdc: Dec, toPerp: z.boolean() }),
  // USDC sent from `user` to `destination` (`usdSend`); the sender pays `fee`.
  z.object({
    type: z.literal("internalTransfer"),
    usdc: Dec,
    user: Address,
    destination: Address,
    fee: Dec,
  }),
  // USDC between a master account and its sub-account.
  z.object({
    type: z.literal("subAccountTransfer"),
    usdc: Dec,
    user: Address,
    destination: Address,
  }),
  z.object({
    type: z.literal("liquidation"),
    liquidatedNtlPos: Dec,
    accountValue: Dec,
    leverageType: z.enum(["Cross", "Isolated"]),
    liquidatedPositions: z.array(z.object({ coin: z.string(), szi: Dec })),
  }),
  z.looseObject({ type: z.string() }),
]);
export const LedgerUpdate = z.object({ time: z.number(), hash: Hash, delta: LedgerDelta });
export type LedgerUpdate = z.infer<typeof LedgerUpdate>;

export const AllMids = z.record(z.string(), Dec);
export type AllMids = z.infer<typeof AllMids>;

const MarginTable = z.object({
  description: z.string(),
  marginTiers: z.array(z.object({ lowerBound: Dec, maxLeverage: z.number() })),
});
export const Meta = z.object({
  universe: z.array(
    z.looseObject({
      name: z.string(),
      szDecimals: z.number(),
      maxLeverage: z.number(),
      marginTableId: z.number().optional(),
      onlyIsolated: z.boolean().optional(),
      isDelisted: z.boolean().optional(),
    }),
  ),
  marginTables: z.array(z.tuple([z.number(), MarginTable])).optional(),
  /** Index of the collateral token in the spot tokens (0: USDC). */
  collateralToken: z.number().optional(),
});
export type Meta = z.infer<typeof Meta>;

export const AssetCtx = z.looseObject({
  markPx: Dec,
  midPx: Dec.nullable(),
  oraclePx: Dec,
  funding: Dec,
  openInterest: Dec,
  prevDayPx: Dec,
  dayNtlVlm: Dec,
  premium: Dec.nullable(),
});
/** `metaAndAssetCtxs`: the universe and, index for index, each asset's mark price. */
export const MetaAndAssetCtxs = z.tuple([Meta, z.array(AssetCtx)]);
export type MetaAndAssetCtxs = z.infer<typeof MetaAndAssetCtxs>;

/** One resting order of `openOrders` (limit or trigger). */
export const OpenOrder = z.looseObject({
  coin: z.string(),
  side: z.enum(["B", "A"]),
  limitPx: Dec,
  sz: Dec,
  oid: z.number(),
  timestamp: z.number(),
  origSz: Dec,
  cloid: z.string().optional(),
  reduceOnly: z.boolean().optional(),
});
export type OpenOrder = z.infer<typeof OpenOrder>;

/** The `POST /info` request bodies the service sends. */
export type InfoRequest =
  | { type: "clearinghouseState"; user: string; dex?: string }
  | { type: "userFillsByTime"; user: string; startTime: number; endTime?: number }
  | { type: "userNonFundingLedgerUpdates"; user: string; startTime: number; endTime?: number }
  | { type: "openOrders"; user: string; dex?: string }
  | { type: "allMids"; dex?: string }
  | { type: "meta"; dex?: string }
  | { type: "metaAndAssetCtxs" };

/** Longest answers of time-range queries (PROTOCOLS.md 1.1): paginate by the last `time`. */
export const INFO_PAGE = { fills: 2000, ledger: 500 } as const;

/** Info types of weight 2; `userRole` weighs 60, every other info request 20 (PROTOCOLS.md 1.2). */
const LIGHT_INFO = [
  "l2Book",
  "allMids",
  "clearinghouseState",
  "orderStatus",
  "spotClearinghouseState",
  "exchangeStatus",
];

/** The documented weight of one info request, charged before it is answered. */
export function infoWeight(type: string): number {
  if (LIGHT_INFO.includes(type)) return 2;
  return type === "userRole" ? 60 : 20;
}

/** Info types that cost extra weight by the length of their answer (the docs' rate limits). */
const PER_ITEM_INFO = [
  "recentTrades",
  "historicalOrders",
  "userFills",
  "userFillsByTime",
  "fundingHistory",
  "userFunding",
  "nonUserFundingUpdates",
  "twapHistory",
  "userTwapSliceFills",
  "userTwapSliceFillsByTime",
  "delegatorHistory",
  "delegatorRewards",
  "validatorStats",
];

/**
 * Extra weight of an answer of `items` rows: +1 per 20 items for the types above, +1 per 60
 * for `candleSnapshot` ("Rate limits and user limits" in Hyperliquid's API docs).
 */
export function infoItemsWeight(type: string, items: number): number {
  if (type === "candleSnapshot") return Math.floor(items / 60);
  return PER_ITEM_INFO.includes(type) ? Math.floor(items / 20) : 0;
}

/** Weight of one `/exchange` request: 1 + floor(batch length / 40). */
export function exchangeWeight(action: object): number {
  const a = action as { orders?: unknown[]; cancels?: unknown[] };
  const batch = a.orders?.length ?? a.cancels?.length ?? 0;
  return 1 + Math.floor(batch / 40);
}

// ---- /exchange -------------------------------------------------------------------------

export type OrderWire = {
  /** Asset index in `meta.universe`. */
  a: number;
  /** true = buy / long. */
  b: boolean;
  p: string;
  s: string;
  /** Reduce only. */
  r: boolean;
  t:
    | { limit: { tif: "Alo" | "Ioc" | "Gtc" } }
    | { trigger: { isMarket: boolean; triggerPx: string; tpsl: "tp" | "sl" } };
  c?: string;
};
export type OrderAction = {
  type: "order";
  orders: OrderWire[];
  grouping: "na" | "normalTpsl" | "positionTpsl";
};
export type CancelAction = { type: "cancel"; cancels: { a: number; o: number }[] };
export type UpdateLeverageAction = {
  type: "updateLeverage";
  asset: number;
  isCross: boolean;
  leverage: number;
};
export type L1Action = OrderAction | CancelAction | UpdateLeverageAction;

export type ExchangeRequest = {
  action: L1Action;
  nonce: number;
  signature: { r: Hex; s: Hex; v: number };
  vaultAddress: Hex | null;
  expiresAfter?: number | null;
};

export const OrderStatus = z.union([
  z.object({ resting: z.object({ oid: z.number(), cloid: z.string().optional() }) }),
  z.object({
    filled: z.object({
      totalSz: Dec,
      avgPx: Dec,
      oid: z.number(),
      cloid: z.string().optional(),
    }),
  }),
  z.object({ error: z.string() }),
]);
export type OrderStatus = z.infer<typeof OrderStatus>;
/** `/exchange`'s answer (PROTOCOLS.md 1.3): checked before an order's outcome is recorded. */
export const ExchangeResponse = z.union([
  z.object({
    status: z.literal("ok"),
    response: z.object({
      type: z.literal("order"),
      data: z.object({ statuses: z.array(OrderStatus) }),
    }),
  }),
  z.object({
    status: z.literal("ok"),
    response: z.object({
      type: z.literal("cancel"),
      data: z.object({
        statuses: z.array(z.union([z.literal("success"), z.object({ error: z.string() })])),
      }),
    }),
  }),
  z.object({ status: z.literal("ok"), response: z.object({ type: z.literal("default") }) }),
  z.object({ status: z.literal("err"), response: z.string() }),
]);
export type ExchangeResponse = z.infer<typeof ExchangeResponse>;

/** `float_to_wire`: at most 8 decimals, no trailing zeros (PROTOCOLS.md 1.3). */
export function toWire(x: number): string {
  const s = x.toFixed(8).replace(/\.?0+$/, "");
  return s === "-0" ? "0" : s;
}

/**
 * The connection id an L1 action is signed over: keccak256(msgpack(action) ‖ nonce ‖ vault ‖
 * expiresAfter), as `@nktkas/hyperliquid` computes it (PROTOCOLS.md 1.4).
 */
export function actionHash(
  action: L1Action,
  nonce: number,
  vaultAddress: Hex | null,
  expiresAfter?: number | null,
): Hex {
  return createL1ActionHash({
    action: action as unknown as Record<string, unknown>,
    nonce,
    vaultAddress: vaultAddress ?? undefined,
    expiresAfter: expiresAfter ?? undefined,
  });
}

/** The EIP-712 "phantom agent" message an L1 action's signature covers. */
export function l1TypedData(connectionId: Hex, isMainnet: boolean) {
  return {
    domain: {
      name: "Exchange",
      version: "1",
      chainId: 1337,
      verifyingContract: "0x0000000000000000000000000000000000000000",
    },
    types: {
      Agent: [
        { name: "source", type: "string" },
        { name: "connectionId", type: "bytes32" },
      ],
    },
    primaryType: "Agent",
    message: { source: isMainnet ? "a" : "b", connectionId },
  } as const;
}

/**
 * Signs an L1 action with `@nktkas/hyperliquid`'s signer and returns the `/exchange` body.
 *
 * @example
 * const body = await signL1Action({ account, action, nonce: Date.now(), isMainnet: false });
 */
export async function signL1Action(p: {
  account: LocalAccount;
  action: L1Action;
  nonce: number;
  vaultAddress?: Hex | null;
  expiresAfter?: number | null;
  isMainnet: boolean;
}): Promise<ExchangeRequest> {
  const vault = p.vaultAddress ?? null;
  const signature = await sdkSignL1Action({
    wallet: p.account,
    action: p.action as unknown as Record<string, unknown>,
    nonce: p.nonce,
    isTestnet: !p.isMainnet,
    vaultAddress: vault ?? undefined,
    expiresAfter: p.expiresAfter ?? undefined,
  });
  return {
    action: p.action,
    nonce: p.nonce,
    signature,
    vaultAddress: vault,
    ...(p.expiresAfter != null ? { expiresAfter: p.expiresAfter } : {}),
  };
}

/** The address that signed an `/exchange` body (lowercase). */
export async function recoverL1Signer(r: ExchangeRequest, isMainnet: boolean): Promise<string> {
  const hash = actionHash(r.action, r.nonce, r.vaultAddress ?? null, r.expiresAfter);
  const address = await recoverTypedDataAddress({
    ...l1TypedData(hash, isMainnet),
    signature: { r: r.signature.r, s: r.signature.s, v: BigInt(r.signature.v) },
  });
  return address.toLowerCase();
}
