import { existsSync, readFileSync } from "node:fs";
import { keccak256, toHex } from "viem";
import { writeJsonAtomic } from "../../../lib/json-file.ts";
import type {
  AssetPosition,
  ClearinghouseState,
  Fill,
  LedgerUpdate,
  OpenOrder,
} from "../../../services/hyperliquid/protocol.ts";
import { toWire } from "../../../services/hyperliquid/protocol.ts";

/** The stand-in's markets: name, size decimals, max leverage and starting mark (PROTOCOLS.md meta). */
export const UNIVERSE = [
  { name: "BTC", szDecimals: 5, maxLeverage: 40, mark: 65_000 },
  { name: "ETH", szDecimals: 4, maxLeverage: 25, mark: 3_200 },
  { name: "SOL", szDecimals: 2, maxLeverage: 20, mark: 150 },
  { name: "BNB", szDecimals: 3, maxLeverage: 10, mark: 600 },
] as const;
/** Taker fee on notional (Hyperliquid's base tier: 0.045 %); makers pay 0.015 %. */
const TAKER_FEE = 0.00045;
const MAKER_FEE = 0.00015;
const DEFAULT_LEVERAGE = 20;

type Position = { szi: number; entryPx: number };
export type Account = {
  /** Deposits - withdrawals + realized PnL - fees. */
  cash: number;
  positions: Record<string, Position>;
  leverage: Record<string, { value: number; isCross: boolean }>;
  fills: Fill[];
  ledger: LedgerUpdate[];
};
export type RestingOrder = {
  oid: number;
  user: string;
  coin: string;
  isBuy: boolean;
  px: number;
  sz: number;
  reduceOnly: boolean;
  cloid?: string;
  trigger?: { triggerPx: number; isMarket: boolean; tpsl: "tp" | "sl" };
  time: number;
};
type State = {
  marks: Record<string, number>;
  accounts: Record<string, Account>;
  orders: RestingOrder[];
  /** API wallet (agent) address -> the account it trades for. */
  agents: Record<string, string>;
  /** Per signer: the highest nonces seen (the venue keeps 100). */
  nonces: Record<string, number[]>;
  nextTid: number;
  nextOid: number;
  nextLedger: number;
  rng: number;
  /** Deposits through the bridge on Arbitrum (bridge.ts); absent until the first scan. */
  bridge?: BridgeState;
};
/** Where the bridge scan is and what it credited, saved with the credits in one write. */
export type BridgeState = {
  /** The scanned chain's block 1 hash: another chain (a reset devnet) starts over. */
  identity: string;
  /** The first block not scanned yet. */
  nextBlock: number;
  /** Hash of block `nextBlock - 1` when scanned: a different one means a reorg. */
  lastHash?: string;
  /** `<txHash>:<logIndex>` of every transfer credited (or refused) on this chain. */
  seen: string[];
};

const coinOf = (coin: string) => UNIVERSE.find((u) => u.name === coin);
const usd = (x: number) => x.toFixed(6);
const sign = (x: number) => (x > 0 ? 1 : x < 0 ? -1 : 0);

/**
 * The stand-in venue's book-keeping: accounts, positions, fills, ledger updates, mark prices
 * (a seeded random walk), resting and trigger orders, liquidations. Kept in memory and, with a
 * `statePath`, written to disk after every change so a restarted stand-in serves the same
 * history (as the real venue would).
 */
export class Venue {
  state: State;
  private readonly statePath?: string;
  constructor(statePath?: string, seed = 1) {
    this.statePath = statePath;
    this.state =
      statePath && existsSync(statePath)
        ? (JSON.parse(readFileSync(statePath, "utf8")) as State)
        : {
            marks: Object.fromEntries(UNIVERSE.map((u) => [u.name, u.mark])),
            accounts: {},
            orders: [],
            agents: {},
            nonces: {},
            nextTid: 100_000_000_000_000,
            nextOid: 50_000_000_000,
            nextLedger: 1,
            rng: seed >>> 0 || 1,
          };
  }

  save(): void {
    if (!this.statePath) return;
    writeJsonAtomic(this.statePath, this.state);
  }

  account(user: string, create = false): Account | undefined {
    const key = user.toLowerCase();
    let a = this.state.accounts[key];
    if (!a && create) {
      a = { cash: 0, positions: {}, leverage: {}, fills: [], ledger: [] };
      this.state.accounts[key] = a;
    }
    return a;
  }

  mark(coin: string): number {
    const m = this.state.marks[coin];
    if (m === undefined) throw new Error(`unknown coin ${coin}`);
    return m;
  }

  /** mulberry32: the same seed walks the same path. */
  private random(): number {
    this.state.rng = (this.state.rng + 0x6d2b79f5) >>> 0;
    let t = this.state.rng;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** One step of the random walk: each mark moves by up to ±stepBps. */
  walk(stepBps: number): void {
    for (const u of UNIVERSE) {
      const m = this.mark(u.name);
      this.state.marks[u.name] = Number(
        (m * (1 + ((2 * this.random() - 1) * stepBps) / 10_000)).toPrecision(5),
      );
    }
    this.afterMarks();
  }

  setMarks(marks: Record<string, number>): void {
    for (const [coin, px] of Object.entries(marks)) {
      if (!coinOf(coin)) throw new Error(`unknown coin ${coin}`);
      this.state.marks[coin] = px;
    }
    this.afterMarks();
  }

  /** Resting orders that now cross fill, triggers fire, under-margined accounts are liquidated. */
  private afterMarks(): void {
    for (const o of [...this.state.orders]) {
      const m = this.mark(o.coin);
      const fire = o.trigger
        ? (o.trigger.tpsl === "tp") === !o.isBuy
          ? m >= o.trigger.triggerPx
          : m <= o.trigger.triggerPx
        : o.isBuy
          ? m <= o.px
          : m >= o.px;
      if (!fire) continue;
      this.state.orders = this.state.orders.filter((x) => x !== o);
      const pos = this.account(o.user)?.positions[o.coin]?.szi ?? 0;
      const sz = o.reduceOnly ? Math.min(o.sz, Math.abs(pos)) : o.sz;
      if (sz <= 0 || (o.reduceOnly && sign(pos) === (o.isBuy ? 1 : -1))) continue;
      const px = o.trigger?.isMarket ? m : o.px;
      this.fill(o.user, o.coin, o.isBuy, sz, px, { oid: o.oid, crossed: !!o.trigger });
    }
    for (const user of Object.keys(this.state.accounts)) {
      const s = this.summary(user);
      if (s.positions.length > 0 && s.accountValue < s.maintenance) this.liquidate(user);
    }
  }

  /** Applies one fill to the account and records it; returns the fill as the venue reports it. */
  fill(
    user: string,
    coin: string,
    isBuy: boolean,
    sz: number,
    px: number,
    o: { oid?: number; crossed?: boolean; time?: number; liquidation?: Fill["liquidation"] } = {},
  ): Fill {
    const a = this.account(user, true) as Account;
    const pos = a.positions[coin] ?? { szi: 0, entryPx: 0 };
    const start = pos.szi;
    const delta = isBuy ? sz : -sz;
    const next = Number((start + delta).toFixed(8));
    const closing = start !== 0 && sign(start) !== sign(delta) ? Math.min(Math.abs(start), sz) : 0;
    const closedPnl = closing * (px - pos.entryPx) * sign(start);
    const side = (s: number) => (s > 0 ? "Long" : "Short");
    const dir =
      closing === 0
        ? `Open ${side(delta)}`
        : sign(next) === -sign(start)
          ? `${side(start)} > ${side(next)}`
          : `Close ${side(start)}`;
    if (next === 0) delete a.positions[coin];
    else if (closing === 0) {
      a.positions[coin] = { szi: next, entryPx: (start * pos.entryPx + delta * px) / next };
    } else if (sign(next) !== sign(start)) a.positions[coin] = { szi: next, entryPx: px };
    else a.positions[coin] = { szi: next, entryPx: pos.entryPx };
    const crossed = o.crossed ?? true;
    const fee = sz * px * (crossed ? TAKER_FEE : MAKER_FEE);
    a.cash += closedPnl - fee;
    const oid = o.oid ?? this.state.nextOid++;
    const f: Fill = {
      coin,
      px: toWire(px),
      sz: toWire(sz),
      side: isBuy ? "B" : "A",
      time: o.time ?? Date.now(),
      startPosition: toWire(start),
      dir,
      closedPnl: usd(closedPnl),
      // The venue's hash is the transaction's: every fill of one order shares it; tid is unique.
      hash: keccak256(toHex(`order:${oid}`)),
      oid,
      crossed,
      fee: usd(fee),
      feeToken: "USDC",
      tid: this.state.nextTid++,
      twapId: null,
      ...(o.liquidation ? { liquidation: o.liquidation } : {}),
    };
    a.fills.push(f);
    a.fills.sort((x, y) => x.time - y.time || x.tid - y.tid);
    return f;
  }

  /** Credits `usdc` to the account and books the ledger's `deposit` line. */
  deposit(user: string, usdc: number, time?: number): LedgerUpdate {
    (this.account(user, true) as Account).cash += usdc;
    return this.ledger(user, { type: "deposit", usdc: toWire(usdc) }, time);
  }

  /**
   * USDC from `user`'s perps balance to `destination`'s (`usdSend`, the ledger's
   * `internalTransfer`): both accounts list the one line; the sender pays `fee` on top.
   */
  transfer(user: string, destination: string, usdc: number, fee = 1, time?: number) {
    (this.account(user, true) as Account).cash -= usdc + fee;
    (this.account(destination, true) as Account).cash += usdc;
    const delta = {
      type: "internalTransfer",
      usdc: toWire(usdc),
      user: user.toLowerCase(),
      destination: destination.toLowerCase(),
      fee: toWire(fee),
    } as const;
    return this.ledger([user, destination], delta, time);
  }

  /** USDC between the account's spot and perps balances (`usdClassTransfer`). */
  classTransfer(user: string, usdc: number, toPerp: boolean, time?: number): LedgerUpdate {
    (this.account(user, true) as Account).cash += toPerp ? usdc : -usdc;
    return this.ledger(user, { type: "accountClassTransfer", usdc: toWire(usdc), toPerp }, time);
  }

  /** Books one ledger line (one hash) on each of `users`' accounts. */
  ledger(users: string | string[], delta: LedgerUpdate["delta"], time = Date.now()): LedgerUpdate {
    const u: LedgerUpdate = {
      time,
      hash: keccak256(toHex(`ledger:${this.state.nextLedger++}`)),
      delta,
    };
    for (const user of typeof users === "string" ? [users] : users) {
      const a = this.account(user, true) as Account;
      a.ledger.push(u);
      a.ledger.sort((x, y) => x.time - y.time);
    }
    return u;
  }

  /** Closes every position at the mark (fills flagged `liquidation`) and books the ledger line. */
  liquidate(user: string): LedgerUpdate | undefined {
    const a = this.account(user);
    if (!a || Object.keys(a.positions).length === 0) return undefined;
    const s = this.summary(user);
    const liquidated = Object.entries(a.positions).map(([coin, p]) => ({
      coin,
      szi: toWire(p.szi),
    }));
    for (const [coin, p] of Object.entries(a.positions)) {
      const markPx = this.mark(coin);
      this.fill(user, coin, p.szi < 0, Math.abs(p.szi), markPx, {
        liquidation: {
          liquidatedUser: user.toLowerCase(),
          markPx: toWire(markPx),
          method: "market",
        },
      });
    }
    return this.ledger(user, {
      type: "liquidation",
      liquidatedNtlPos: usd(s.notional),
      accountValue: usd(s.accountValue),
      leverageType: "Cross",
      liquidatedPositions: liquidated,
    });
  }

  leverageOf(user: string, coin: string) {
    const max = coinOf(coin)?.maxLeverage ?? DEFAULT_LEVERAGE;
    return (
      this.account(user)?.leverage[coin] ?? {
        value: Math.min(DEFAULT_LEVERAGE, max),
        isCross: true,
      }
    );
  }

  /** Account value, margins and each position valued at the current marks. */
  summary(user: string) {
    const a = this.account(user) ?? { cash: 0, positions: {}, leverage: {}, fills: [], ledger: [] };
    let upnl = 0;
    let notional = 0;
    let marginUsed = 0;
    let maintenance = 0;
    const positions = Object.entries(a.positions).map(([coin, p]) => {
      const m = this.mark(coin);
      const u = p.szi * (m - p.entryPx);
      const value = Math.abs(p.szi) * m;
      const lev = this.leverageOf(user, coin);
      const maxLev = coinOf(coin)?.maxLeverage ?? DEFAULT_LEVERAGE;
      upnl += u;
      notional += value;
      marginUsed += value / lev.value;
      maintenance += value / (2 * maxLev);
      return { coin, p, m, u, value, lev, maxLev };
    });
    return {
      cash: a.cash,
      accountValue: a.cash + upnl,
      notional,
      marginUsed,
      maintenance,
      positions,
    };
  }

  /** `clearinghouseState` of a user (an unknown user has an empty account, as on the venue). */
  /** `openOrders`: the user's resting limit and trigger orders, newest first. */
  openOrders(user: string): OpenOrder[] {
    return this.state.orders
      .filter((o) => o.user === user)
      .sort((a, b) => b.time - a.time || b.oid - a.oid)
      .map((o) => ({
        coin: o.coin,
        side: o.isBuy ? "B" : "A",
        limitPx: toWire(o.px),
        sz: toWire(o.sz),
        oid: o.oid,
        timestamp: o.time,
        origSz: toWire(o.sz),
        ...(o.cloid ? { cloid: o.cloid } : {}),
        ...(o.reduceOnly ? { reduceOnly: true } : {}),
      }));
  }

  clearinghouse(user: string): ClearinghouseState {
    const s = this.summary(user);
    const assetPositions: AssetPosition[] = s.positions.map((x) => {
      // The mark at which this position alone takes the account to its maintenance margin.
      const others = s.accountValue - x.u;
      const othersMm = s.maintenance - x.value / (2 * x.maxLev);
      const k = x.p.szi - Math.abs(x.p.szi) / (2 * x.maxLev);
      const liq = k === 0 ? null : (othersMm - others + x.p.szi * x.p.entryPx) / k;
      const margin = x.value / x.lev.value;
      return {
        type: "oneWay",
        position: {
          coin: x.coin,
          szi: toWire(x.p.szi),
          leverage: x.lev.isCross
            ? { type: "cross", value: x.lev.value }
            : { type: "isolated", value: x.lev.value, rawUsd: usd(margin) },
          entryPx: toWire(Number(x.p.entryPx.toPrecision(8))),
          positionValue: usd(x.value),
          unrealizedPnl: usd(x.u),
          returnOnEquity: (margin === 0 ? 0 : x.u / margin).toFixed(8),
          liquidationPx: liq === null || liq <= 0 ? null : toWire(Number(liq.toPrecision(6))),
          marginUsed: usd(margin),
          maxLeverage: x.maxLev,
          cumFunding: { allTime: "0.0", sinceOpen: "0.0", sinceChange: "0.0" },
        },
      };
    });
    const summary = {
      accountValue: usd(s.accountValue),
      totalNtlPos: usd(s.notional),
      totalRawUsd: usd(s.cash),
      totalMarginUsed: usd(s.marginUsed),
    };
    return {
      marginSummary: summary,
      crossMarginSummary: summary,
      crossMaintenanceMarginUsed: usd(s.maintenance),
      withdrawable: usd(Math.max(0, s.accountValue - s.marginUsed)),
      assetPositions,
      time: Date.now(),
    };
  }
}
