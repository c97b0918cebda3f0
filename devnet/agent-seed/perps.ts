import { setTimeout as sleep } from "node:timers/promises";
import { DEVNET_LIMITS } from "../limits.ts";

type Address = `0x${string}`;

/** What the seed does on the perps venue each run (sizes within the seeded deposit's margin). */
export const PERPS_SEED = {
  /** Deposited through the venue's control when there is no Arbitrum chain to bridge from. */
  depositUsdc: 100,
  /** A BTC long opened, added to and closed; an ETH short opened and left open. */
  btc: [0.002, 0.001],
  ethShort: 0.05,
} as const;

/** The perps venue stand-in as the seed drives it: `/info` reads and its `/_control/` seed controls. */
export function venueStandIn(url: string) {
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const r = await fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`perps venue ${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as T;
  };
  return {
    /** Deposits booked on the account's ledger so far. */
    deposits: async (user: Address) =>
      (
        await post<{ delta: { type: string } }[]>("/info", {
          type: "userNonFundingLedgerUpdates",
          user,
          startTime: 0,
        })
      ).filter((u) => u.delta.type === "deposit").length,
    positions: async (user: Address) =>
      (
        await post<{ assetPositions: { position: { coin: string } }[] }>("/info", {
          type: "clearinghouseState",
          user,
        })
      ).assetPositions.map((a) => a.position.coin),
    control: (path: string, body: unknown) => post<unknown>(`/_control${path}`, body),
  };
}

/**
 * The agent's perps account comes alive: its deposit (bridged from Arbitrum when the seed sent
 * one, `depositsBefore` being the ledger's deposits before it; else a deposit through the
 * venue's control), then fills at the marks through the venue's seed controls: a BTC long
 * opened, added to and closed (realized PnL), the ETH short of an earlier run closed, a new
 * ETH short opened. Returns the number of fills.
 */
export async function seedPerps(p: {
  url: string;
  user: Address;
  depositsBefore?: number;
  log: (line: string) => void;
}): Promise<number> {
  const venue = venueStandIn(p.url);
  if (p.depositsBefore === undefined) {
    await venue.control("/deposit", { user: p.user, usdc: PERPS_SEED.depositUsdc });
    p.log(`perps: ${PERPS_SEED.depositUsdc} USDC deposited to ${p.user} (no Arbitrum chain)`);
  } else {
    const deadline = Date.now() + DEVNET_LIMITS.seedVenueCreditWaitMs;
    while ((await venue.deposits(p.user)) <= p.depositsBefore) {
      if (Date.now() > deadline)
        throw new Error(`the perps venue did not credit the bridge deposit of ${p.user}`);
      await sleep(250);
    }
    p.log(`perps: the venue credited the bridge deposit to ${p.user}`);
  }
  let fills = 0;
  const fill = async (coin: string, side: "B" | "A", sz: number) => {
    await venue.control("/fill", { user: p.user, coin, side, sz });
    fills++;
  };
  for (const sz of PERPS_SEED.btc) await fill("BTC", "B", sz);
  await venue.control("/close", { user: p.user, coin: "BTC" });
  fills++;
  if ((await venue.positions(p.user)).includes("ETH")) {
    await venue.control("/close", { user: p.user, coin: "ETH" });
    fills++;
  }
  await fill("ETH", "A", PERPS_SEED.ethShort);
  p.log(`perps: ${fills} fills on ${p.user} (BTC long opened and closed, ETH short open)`);
  return fills;
}
