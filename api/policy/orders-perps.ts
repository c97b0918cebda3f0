import { type Hex, parseSignature } from "viem";
import type { PerpsAction } from "../../lib/policy/perps.ts";
import type { PerpsVenue } from "../../lib/policy/snapshot.ts";
import { actionHash, type L1Action, l1TypedData } from "../../services/hyperliquid/protocol.ts";
import type { StewardClient } from "../../services/steward/client.ts";
import { HttpError } from "../errors.ts";
import { ORDER_LIMITS } from "../limits.ts";
import { type JudgeDeps, judgeVenueActions, type OrderWallet } from "./judge.ts";

/** What a perps order needs from the venue: its info reads and where signed actions go. */
export type PerpsExchange = PerpsVenue & {
  exchange: (body: never) => Promise<unknown>;
  /** Hyperliquid mainnet ("a") or testnet ("b") phantom-agent source; default mainnet. */
  isMainnet?: boolean;
};

export type PerpsOrderInput = {
  venue: string;
  asset: string;
  side: "long" | "short";
  size: string;
  leverage?: number;
  reduceOnly: boolean;
  limitPx?: string;
};

/** Hyperliquid prices: at most 5 significant figures (PROTOCOLS.md 1.3). */
function wirePrice(x: number): string {
  return Number(x.toPrecision(5)).toString();
}

let lastNonce = 0;
/** Venue nonces: the current time in ms, strictly increasing within this process. */
function nextNonce(): number {
  lastNonce = Math.max(Date.now(), lastNonce + 1);
  return lastNonce;
}

const venueError = (r: unknown): string | undefined => {
  const v = r as {
    status?: string;
    response?: string | { data?: { statuses?: ({ error?: string } | string)[] } };
  };
  if (v?.status !== "ok") return typeof v?.response === "string" ? v.response : "refused";
  const s = typeof v.response === "object" ? v.response.data?.statuses?.[0] : undefined;
  return s && typeof s === "object" && s.error ? s.error : undefined;
};

export type PerpsOrderParameters = {
  judge: JudgeDeps;
  steward: Pick<StewardClient, "signTypedData">;
  perps?: PerpsExchange;
  wallet: OrderWallet;
  order: PerpsOrderInput;
};

/**
 * A venue order: the leverage (when asked, and not on a reduce-only close) and one IOC order at the mark ± slippage (or the
 * given limit), both judged by the service's chain before either is signed. Each allowed action
 * is signed by Steward as the venue's EIP-712 "Agent" message (`sign-typed-data`) and submitted
 * by us, the leverage first. A venue we cannot submit to is judged (and refused) all the same.
 */
export async function placePerpsOrder(p: PerpsOrderParameters) {
  const o = p.order;
  const perps = p.perps;
  if (!perps) {
    await judgeVenueActions(
      p.judge,
      p.wallet,
      o.venue,
      [{ type: "order", asset: o.asset, side: o.side, size: o.size } as PerpsAction],
      async () => undefined,
    );
    throw new HttpError("upstream_error", {
      message: `${o.venue} is a venue this service cannot submit to`,
    });
  }
  const [meta, mids] = await Promise.all([perps.meta(), perps.allMids()]);
  const index = meta.universe.findIndex((m) => m.name === o.asset);
  if (index < 0) {
    throw new HttpError("validation_failed", {
      message: `asset: ${o.asset} is not a market of ${o.venue}`,
      details: [{ path: "asset", message: "not a market of the venue" }],
    });
  }
  const isBuy = o.side === "long";
  const mark = Number(mids[o.asset]);
  const px =
    o.limitPx ??
    wirePrice(mark * (isBuy ? 1 + ORDER_LIMITS.perpsSlippage : 1 - ORDER_LIMITS.perpsSlippage));
  // A reduce-only order is a close: it sets no leverage (that would re-lever what stays open
  // and be judged as an open), so a close passes under any later version (docs/policies.md).
  const actions: L1Action[] = [
    ...(o.leverage === undefined || o.reduceOnly
      ? []
      : [{ type: "updateLeverage" as const, asset: index, isCross: true, leverage: o.leverage }]),
    // Key order is part of the signed hash: a, b, p, s, r, t as the venue defines them.
    {
      type: "order",
      orders: [
        { a: index, b: isBuy, p: px, s: o.size, r: o.reduceOnly, t: { limit: { tif: "Ioc" } } },
      ],
      grouping: "na",
    },
  ];
  const { results, policy } = await judgeVenueActions(
    p.judge,
    p.wallet,
    o.venue,
    actions as PerpsAction[],
    async (action) => {
      const nonce = nextNonce();
      const hash = actionHash(action as L1Action, nonce, null);
      const typed = l1TypedData(hash, perps.isMainnet ?? true);
      const { signature } = await p.steward.signTypedData(p.wallet.walletId, {
        domain: typed.domain,
        types: typed.types,
        primaryType: typed.primaryType,
        value: typed.message,
      });
      const sig = parseSignature(signature as Hex);
      const body = {
        action,
        nonce,
        signature: { r: sig.r, s: sig.s, v: Number(sig.v ?? BigInt(sig.yParity + 27)) },
        vaultAddress: null,
      };
      const answer = await perps.exchange(body as never);
      const err = venueError(answer);
      if (err) {
        const what = action.type === "updateLeverage" ? "the leverage" : "the order";
        throw new HttpError("upstream_error", { message: `the venue refused ${what}: ${err}` });
      }
      return answer;
    },
  );
  return {
    policyId: policy.policyId,
    version: policy.version,
    venueResponse: results.at(-1),
    leverageTx: actions.length > 1 ? results[0] : undefined,
  };
}
