// The one interval mechanism of the roles (heartbeats, the index's lag, the feed's projector, the
// watchdog, the devnet's miner and state dumps): rounds never overlap, a failed round does not
// stop the next, and stop waits for the round in flight.
import { describe, expect, it } from "vitest";
import { startTicker } from "./ticker.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const waitUntil = async (ok: () => boolean) => {
  while (!ok()) await sleep(2);
};

describe("startTicker", () => {
  it("skips a round while the previous one still runs", async () => {
    let release = () => {};
    let started = 0;
    const t = startTicker({
      everyMs: 5,
      tick: () => {
        started++;
        return new Promise<void>((r) => {
          release = r;
        });
      },
    });
    await waitUntil(() => started === 1);
    await sleep(60); // a dozen intervals pass while the first round hangs
    expect(started).toBe(1);
    release();
    await waitUntil(() => started === 2);
    release();
    await t.stop();
  });

  it("reports a failed round and carries on with the next", async () => {
    const errors: unknown[] = [];
    let rounds = 0;
    const t = startTicker({
      everyMs: 5,
      immediately: true,
      tick: async () => {
        rounds++;
        if (rounds === 1) throw new Error("first round fails");
      },
      onError: (e) => errors.push(e),
    });
    await waitUntil(() => rounds >= 2);
    await t.stop();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain("first round fails");
  });

  it("stop resolves after the round in flight has ended, and no round starts after it", async () => {
    let ended = false;
    let started = 0;
    const t = startTicker({
      everyMs: 1_000,
      immediately: true,
      tick: async () => {
        started++;
        await sleep(50);
        ended = true;
      },
    });
    await t.stop();
    expect(ended).toBe(true);
    await sleep(20);
    expect(started).toBe(1);
  });

  it("a synchronous throw counts as a failed round", async () => {
    const errors: unknown[] = [];
    const t = startTicker({
      everyMs: 1_000,
      immediately: true,
      tick: () => {
        throw new Error("sync");
      },
      onError: (e) => errors.push(e),
    });
    await t.stop();
    expect(errors).toHaveLength(1);
  });
});
