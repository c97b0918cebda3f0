import { describe, expect, it } from "vitest";
import { indexerStall, restartHelps, rpcErrorInLog } from "./watchdog.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const iso = (t: number) => new Date(t).toISOString();
const report = (p: {
  at: number;
  indexed: number;
  head: number;
  advancedAt: number;
  headMovedAt: number;
}) => ({
  at: p.at,
  progress: {
    schema: "indexer_1",
    indexedBlock: p.indexed,
    headBlock: p.head,
    lagSeconds: 0,
    advancedAt: iso(p.advancedAt),
    headMovedAt: iso(p.headMovedAt),
  },
});

describe("indexerStall", () => {
  const now = T0 + 120_000;
  const watching = T0;

  it("restarts an index stuck behind a head that keeps moving (the RPC answers)", () => {
    const r = report({
      at: now - 1_000,
      indexed: 2055,
      head: 2505,
      advancedAt: T0,
      headMovedAt: now - 1_000,
    });
    expect(indexerStall(r, now, watching, 60_000)).toBe(
      "the index is stuck at block 2055 for 120 s while the RPC answers and the head moved to 2505",
    );
  });

  it("leaves alone a role waiting out a database outage, and judges its Ponder from its restart", () => {
    const stuck = report({
      at: now - 1_000,
      indexed: 2055,
      head: 2505,
      advancedAt: T0,
      headMovedAt: now - 1_000,
    });
    const waiting = { ...stuck, progress: { ...stuck.progress, ponderStartedAt: null } };
    expect(indexerStall(waiting, now, watching, 60_000)).toBeUndefined();
    const restarted = (at: number) => ({
      ...stuck,
      progress: { ...stuck.progress, ponderStartedAt: iso(at) },
    });
    expect(indexerStall(restarted(now - 30_000), now, watching, 60_000)).toBeUndefined();
    expect(indexerStall(restarted(now - 61_000), now, watching, 60_000)).toBe(
      "the index is stuck at block 2055 for 61 s while the RPC answers and the head moved to 2505",
    );
  });

  it("leaves alone an index that moves, one at the head, and one whose RPC is down", () => {
    const moving = report({
      at: now,
      indexed: 100,
      head: 2505,
      advancedAt: now - 2_000,
      headMovedAt: now,
    });
    expect(indexerStall(moving, now, watching, 60_000)).toBeUndefined();
    const atHead = report({ at: now, indexed: 2505, head: 2505, advancedAt: T0, headMovedAt: T0 });
    expect(indexerStall(atHead, now, watching, 60_000)).toBeUndefined();
    // The head has not moved for the whole window: the chain or RPC is stuck, not Ponder.
    const rpcDown = report({ at: now, indexed: 2055, head: 2060, advancedAt: T0, headMovedAt: T0 });
    expect(indexerStall(rpcDown, now, watching, 60_000)).toBeUndefined();
  });

  it("restarts a role that stopped reporting, but gives a (re)started one a full window", () => {
    const silent = report({ at: T0, indexed: 5, head: 5, advancedAt: T0, headMovedAt: T0 });
    expect(indexerStall(silent, now, watching, 60_000)).toBe(
      "the indexer has not reported for 120 s",
    );
    expect(indexerStall(silent, now, now - 30_000, 60_000)).toBeUndefined();
    expect(indexerStall(undefined, now, now - 30_000, 60_000)).toBeUndefined();
  });

  it("gives a booting role its boot grace, and does not count a report from before its start", () => {
    // Restarted 120 s ago, past the stall window but within the boot grace: Ponder is booting.
    const before = report({ at: T0 - 1_000, indexed: 5, head: 9, advancedAt: T0, headMovedAt: T0 });
    expect(indexerStall(before, now, watching, 60_000, 180_000)).toBeUndefined();
    expect(indexerStall(undefined, now, watching, 60_000, 180_000)).toBeUndefined();
    // Past the boot grace with no report since the start: the role hangs in its boot.
    const later = now + 61_000;
    expect(indexerStall(before, later, watching, 60_000, 180_000)).toBe(
      "the indexer has not reported for 181 s since it started",
    );
    // Its first report ends the grace: from then on the stall window applies.
    const first = report({ at: now, indexed: 5, head: 9, advancedAt: now, headMovedAt: now });
    expect(indexerStall(first, now + 1_000, watching, 60_000, 180_000)).toBeUndefined();
    expect(indexerStall(first, now + 61_000, watching, 60_000, 180_000)).toBe(
      "the indexer has not reported for 61 s",
    );
  });
});

describe("restartHelps", () => {
  const at = (indexed: number) =>
    report({ at: T0, indexed, head: indexed + 100, advancedAt: T0, headMovedAt: T0 });

  it("does not restart again an index stuck where it was before the last restart", () => {
    expect(restartHelps(768, at(768))).toBe(false);
  });

  it("restarts an index that moved since, or a first stall", () => {
    expect(restartHelps(768, at(800))).toBe(true);
    expect(restartHelps(null, at(768))).toBe(true);
  });
});

describe("rpcErrorInLog", () => {
  it("tells the chain, the call and the message of Ponder's RPC error line", () => {
    const line = JSON.stringify({
      level: 40,
      msg: "Received JSON-RPC error",
      chain: "arbitrum",
      request: JSON.stringify({ method: "eth_getBlockByNumber", params: ["0x1e0", false] }),
      error: { shortMessage: 'Block at number "0x1e0" could not be found.' },
    });
    expect(rpcErrorInLog(line)).toBe(
      'arbitrum eth_getBlockByNumber ["0x1e0",false]: Block at number "0x1e0" could not be found.',
    );
    expect(rpcErrorInLog('{"msg":"Indexed block"}')).toBeUndefined();
  });
});
