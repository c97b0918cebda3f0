import { z } from "zod";
import type { EventCategory } from "./store.ts";

// The event types the service knows: the `data` schema of each and its feed category. Inbound
// webhooks validate against these schemas; the renderer (render.ts) has one template per type.
// An unknown type (only `/v2/webhooks/agent-events` accepts one) is stored as `system` unless
// the sender names a category, and renders as a generic line.

/** A USD amount as a decimal string: floats lose cents when summed. */
export const UsdAmount = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,18})?$/, 'must be a decimal string of USD, e.g. "0.0125"');
const Count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const Text = (max: number) => z.string().min(1).max(max);
const HttpsUrl = z.url({ protocol: /^https?$/ }).max(2000);
const Repo = Text(200);
const Hex = z.string().regex(/^0x[0-9a-fA-F]*$/);

// The signer's decision (docs/policies.md): the version it was judged by, what the call was
// (kind; for a trade venue, asset, side, action, notionalUsd, leverage) and, when refused,
// the evaluator, its code and reason.
const policy = z.looseObject({
  policyId: Text(200).optional(),
  version: z.number().int().positive().optional(),
  callId: Text(200).optional(),
  evaluator: Text(200).optional(),
  code: Text(100).optional(),
  reason: Text(2000).optional(),
  to: Hex.optional(),
  value: z.string().max(80).optional(),
  kind: Text(100).optional(),
  venue: Text(50).optional(),
  asset: Text(64).optional(),
  side: z.enum(["long", "short"]).optional(),
  action: z.enum(["open", "close"]).optional(),
  notionalUsd: z
    .string()
    .regex(/^\d{1,30}(\.\d{1,18})?$/)
    .optional(),
  leverage: z.number().int().positive().max(1000).optional(),
  txHash: Hex.optional(),
});
const credits = z.object({ provider: Text(100), balanceUsd: UsdAmount });
const pr = z.object({
  repo: Repo,
  number: z.number().int().positive(),
  title: Text(500),
  url: HttpsUrl,
});

/** Types whose `data` arrives by webhook, with their schema and category. */
export const WEBHOOK_TYPES = {
  "policy.applied": { category: "system", data: policy },
  "policy.denied": { category: "system", data: policy },
  "policy.needs_manual": { category: "system", data: policy },
  "safe.tx.signed_by_steward": {
    category: "treasury",
    data: z.looseObject({ safeTxHash: Hex.optional(), safe: Hex.optional() }),
  },
  "session.opened": {
    category: "system",
    data: z.looseObject({ sessionId: Text(200).optional() }),
  },
  "session.revoked": {
    category: "system",
    data: z.looseObject({ sessionId: Text(200).optional() }),
  },
  "transaction.sent": {
    category: "treasury",
    data: z.looseObject({
      txHash: Hex.optional(),
      to: Hex.optional(),
      value: z.string().max(80).optional(),
    }),
  },
  "credits.low": { category: "treasury", data: credits },
  "credits.depleted": { category: "treasury", data: credits },
  "credits.topped_up": { category: "treasury", data: credits },
  "inference.spent": {
    category: "treasury",
    data: z.object({
      provider: Text(100),
      model: Text(200).optional(),
      usd: UsdAmount,
      tokensIn: Count.optional(),
      tokensOut: Count.optional(),
    }),
  },
  "pr.opened": { category: "apps", data: pr },
  "pr.merged": { category: "apps", data: pr },
  "commit.pushed": {
    category: "apps",
    data: z.object({
      repo: Repo,
      sha: z.string().regex(/^[0-9a-f]{7,64}$/),
      message: Text(2000),
      url: HttpsUrl,
    }),
  },
  "tweet.posted": {
    category: "apps",
    data: z.object({ tweetId: Text(64), text: z.string().max(4000), url: HttpsUrl }),
  },
  "bridge.completed": {
    category: "treasury",
    data: z.looseObject({
      fromChain: Text(50),
      toChain: Text(50),
      asset: Text(50),
      amount: z.string().max(80),
    }),
  },
  "trade.open": { category: "trading", data: z.looseObject({ market: Text(50) }) },
  "trade.close": { category: "trading", data: z.looseObject({ market: Text(50) }) },
  "trade.fill": { category: "trading", data: z.looseObject({ market: Text(50) }) },
  "trade.liquidation": { category: "trading", data: z.looseObject({ market: Text(50) }) },
} as const satisfies Record<string, { category: EventCategory; data: z.ZodType }>;
export type WebhookEventType = keyof typeof WEBHOOK_TYPES;

/** Types the chain projector writes (source `evm-indexer:bsc`), with their category. */
export const CHAIN_TYPES = {
  "trade.buy": "trading",
  "trade.sell": "trading",
  "launch.created": "market",
  "launch.graduated": "market",
  "launch.report": "market",
  "identity.registered": "system",
  "identity.uri_updated": "system",
  "identity.metadata_set": "system",
  "identity.transferred": "system",
  "safe.tx.executed": "treasury",
  "safe.tx.failed": "treasury",
  "wallet.token_in": "treasury",
  "wallet.token_out": "treasury",
  "wallet.bnb_in": "treasury",
  "wallet.bnb_out": "treasury",
  "tax.income": "treasury",
} as const satisfies Record<string, EventCategory>;
export type ChainEventType = keyof typeof CHAIN_TYPES;

/** Types the off-chain pollers write (docs/pollers.md), with their category. */
export const POLLER_TYPES = {
  "trade.liquidated": "trading",
  "perps.deposit": "treasury",
  "perps.withdraw": "treasury",
  "perps.transfer.in": "treasury",
  "perps.transfer.out": "treasury",
  "perps.deposit.sent": "treasury",
  "safe.tx.proposed": "treasury",
  "safe.tx.confirmed": "treasury",
} as const satisfies Record<string, EventCategory>;

/** Types the service writes itself for the sell pledge (its saves, a loosening that binds). */
export const SERVICE_TYPES = {
  "pledge.updated": "market",
  "pledge.loosened": "market",
} as const satisfies Record<string, EventCategory>;

/** The feed category of a type: known types have theirs, others `fallback` or `system`. */
export function categoryOf(eventType: string, fallback?: EventCategory): EventCategory {
  const known = (WEBHOOK_TYPES as Record<string, { category: EventCategory }>)[eventType];
  return (
    known?.category ??
    (CHAIN_TYPES as Record<string, EventCategory>)[eventType] ??
    (POLLER_TYPES as Record<string, EventCategory>)[eventType] ??
    (SERVICE_TYPES as Record<string, EventCategory>)[eventType] ??
    fallback ??
    "system"
  );
}

/** Every type the catalog knows, for the OpenAPI enum and the renderer's coverage test. */
export const KNOWN_TYPES = [
  ...Object.keys(WEBHOOK_TYPES),
  ...Object.keys(CHAIN_TYPES),
  ...Object.keys(POLLER_TYPES),
  ...Object.keys(SERVICE_TYPES),
];

/** Webhook sources: each path's stored `source` and the types it accepts (api/AGENT.md). */
export const WEBHOOK_SOURCES = {
  "steward/policy": {
    source: "steward",
    types: ["policy.applied", "policy.denied", "policy.needs_manual"],
  },
  "steward/sign": {
    source: "steward",
    types: ["safe.tx.signed_by_steward", "session.opened", "session.revoked", "transaction.sent"],
  },
  "cloud/credits": {
    source: "cloud",
    types: ["credits.low", "credits.depleted", "credits.topped_up"],
  },
  "cloud/inference": { source: "cloud", types: ["inference.spent"] },
  "code-host": { source: "code-host", types: ["pr.opened", "pr.merged", "commit.pushed"] },
  // Any pre-formed event: known types are checked against their schema, others pass as data.
  "agent-events": { source: "agent-events", types: null },
} as const satisfies Record<string, { source: string; types: readonly WebhookEventType[] | null }>;
export type WebhookPath = keyof typeof WEBHOOK_SOURCES;
