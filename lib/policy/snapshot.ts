import { type Address, erc20Abi, type PublicClient } from "viem";
import { bnbUsdFeedAbi } from "../../abis/BnbUsdFeed.ts";
import { uniswapV2Router02Abi } from "../../abis/UniswapV2Router02.ts";
import type { OpenPosition, PolicyState, RealizedPnl } from "./intent.ts";
import { SPOT_VENUE, usdToUnits } from "./model.ts";
import { perpsPositions, type VenuePosition } from "./perps.ts";
import { weiToUsd } from "./spot.ts";
import type { LedgerEntry } from "./store.ts";

/** What the evaluators read from the perps venue (Hyperliquid's info API). */
export type PerpsVenue = {
  meta: () => Promise<{ universe: { name: string; maxLeverage: number }[] }>;
  allMids: () => Promise<Record<string, string>>;
  clearinghouseState: (user: string) => Promise<{
    assetPositions: { position: { coin: string; szi: string; leverage: { value: number } } }[];
  }>;
  userFillsByTime: (
    user: string,
    startTime: number,
    endTime?: number,
  ) => Promise<{ time: number; closedPnl: string }[]>;
};

/** The chain the evaluators read for spot trades. */
export type SpotChain = {
  client: PublicClient;
  router: Address;
  wbnb: Address;
  bnbUsdFeed: Address;
};

const DAY_MS = 86_400_000;
const UNBOUNDED = 2n ** 128n;

/** BNB/USD from the feed; a zero, negative or unreadable answer fails the call closed. */
export async function bnbUsd(c: SpotChain): Promise<{ answer: bigint; decimals: number }> {
  const [round, decimals] = await Promise.all([
    c.client.readContract({
      address: c.bnbUsdFeed,
      abi: bnbUsdFeedAbi,
      functionName: "latestRoundData",
    }),
    c.client.readContract({ address: c.bnbUsdFeed, abi: bnbUsdFeedAbi, functionName: "decimals" }),
  ]);
  const answer = (round as readonly bigint[])[1] as bigint;
  if (answer <= 0n) throw new Error("BNB/USD feed answered a non-positive price");
  return { answer, decimals: Number(decimals) };
}

/** Spot holdings the service let the agent buy: every ledger asset the wallet still holds, at the pair's price. */
async function spotPositions(
  c: SpotChain,
  wallet: Address,
  ledger: readonly LedgerEntry[],
  price: { answer: bigint; decimals: number },
): Promise<OpenPosition[]> {
  const assets = [
    ...new Set(
      ledger.filter((e) => e.venue === SPOT_VENUE && e.action === "open").map((e) => e.asset),
    ),
  ];
  const out: OpenPosition[] = [];
  for (const asset of assets) {
    const balance = await c.client.readContract({
      address: asset as Address,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [wallet],
    });
    if (balance === 0n) continue;
    let notionalUsd = UNBOUNDED; // no price: count it as unbounded, never as nothing
    try {
      const amounts = await c.client.readContract({
        address: c.router,
        abi: uniswapV2Router02Abi,
        functionName: "getAmountsOut",
        args: [balance, [asset as Address, c.wbnb]],
      });
      notionalUsd = weiToUsd(amounts[1] as bigint, price);
    } catch {}
    out.push({ venue: SPOT_VENUE, asset, side: "long", notionalUsd });
  }
  return out;
}

export type SnapshotParameters = {
  now: Date;
  wallet: Address;
  ledger: readonly LedgerEntry[];
  lossWindowSec: number;
  spot?: SpotChain;
  perps?: PerpsVenue;
  /** Read already for the decoder (one read per call). */
  bnbPrice?: { answer: bigint; decimals: number };
  venue?: { positions: VenuePosition[]; marks: Record<string, string> };
};

/**
 * One snapshot of everything the evaluators may know, read once per order: open
 * positions on both venues at their marks, today's opened notional from the service's
 * ledger, and realized PnL from the venue's fills over the loss window and today.
 * Throws when a source cannot be read: the caller denies (fail closed).
 */
export async function takeSnapshot(p: SnapshotParameters): Promise<PolicyState> {
  const midnight = Math.floor(p.now.getTime() / DAY_MS) * DAY_MS;
  const openedTodayUsd = p.ledger
    .filter((e) => e.action === "open" && Date.parse(e.at) >= midnight)
    .reduce((a, e) => a + usdToUnits(e.notionalUsd), 0n);
  const positions: OpenPosition[] = [];
  let realized: RealizedPnl[] = [];
  if (p.perps) {
    const venue = p.venue ?? (await venueState(p.perps, p.wallet));
    positions.push(...perpsPositions(venue.positions, venue.marks));
    const since = Math.min(midnight, p.now.getTime()) - p.lossWindowSec * 1000;
    const fills = await p.perps.userFillsByTime(p.wallet, since, p.now.getTime());
    realized = fills
      .filter(
        (f) => /^-?\d+(\.\d+)?$/.test(f.closedPnl) && f.closedPnl.replace(/[-0.]/g, "") !== "",
      )
      .map((f) => ({ at: new Date(f.time), usd: usdToUnits(f.closedPnl) }));
  }
  if (p.spot) {
    const price = p.bnbPrice ?? (await bnbUsd(p.spot));
    positions.push(...(await spotPositions(p.spot, p.wallet, p.ledger, price)));
  }
  return { now: p.now, positions, openedTodayUsd, realized };
}

/** The wallet's venue positions and the marks, read together. */
export async function venueState(perps: PerpsVenue, wallet: string) {
  const [state, marks] = await Promise.all([perps.clearinghouseState(wallet), perps.allMids()]);
  return {
    positions: state.assetPositions.map((a) => ({
      coin: a.position.coin,
      szi: a.position.szi,
      leverage: a.position.leverage.value,
    })),
    marks,
  };
}
