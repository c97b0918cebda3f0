import { describe, expect, it } from "vitest";
import { SUPERVISOR_LIMITS } from "./limits.ts";
import { restartDecision } from "./restart-policy.ts";

const now = Date.parse("2026-01-01T00:10:00Z");
const ago = (s: number) => now - s * 1000;

describe("restartDecision", () => {
  it("restarts at once up to the limit within the window, forgetting older restarts", () => {
    const d = restartDecision({
      started: true,
      restarts: [ago(600), ago(30), ago(20)],
      now,
    });
    expect(d).toEqual({ action: "restart", delayMs: 0, recent: [ago(30), ago(20), now] });
  });

  it("fails a start whose role keeps dying, so a broken configuration shows at once", () => {
    const d = restartDecision({
      started: false,
      restarts: [ago(3), ago(2), ago(1)],
      now,
    });
    expect(d).toEqual({
      action: "give-up",
      reason: "it exited 4 times within 60 s while starting",
    });
  });

  it("keeps restarting a running service's role, backing off up to the cap", () => {
    const delays: number[] = [];
    let restarts = [ago(3), ago(2), ago(1)];
    for (let i = 0; i < 8; i++) {
      const d = restartDecision({ started: true, restarts, now });
      if (d.action !== "restart") throw new Error("gave up");
      delays.push(d.delayMs);
      restarts = d.recent;
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    expect(Math.max(...delays)).toBe(SUPERVISOR_LIMITS.backoffMaxMs);
  });
});
