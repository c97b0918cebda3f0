import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nextAttemptAt } from "../../../jobs/webhooks/outbound/attempts.ts";
import { ConfigError, loadConfig } from "../../../lib/config.ts";
import { seal, unseal } from "../../../lib/crypto/seal.ts";
import { OUTBOUND_LIMITS } from "../../../lib/limits.ts";
import { outboundSettings } from "../../../lib/webhooks/outbound/settings.ts";
import { outboundTiming } from "../../../lib/webhooks/outbound/timing.ts";

const dir = mkdtempSync(join(tmpdir(), "outbound-settings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("outbound webhook settings", () => {
  it("refuses trusted origins in production, as the launch image check does", () => {
    expect(() =>
      loadConfig(
        { LAUNCHPAD_ENV: "production", OUTBOUND_WEBHOOK_TRUSTED_ORIGINS: "http://127.0.0.1:4000" },
        dir,
      ),
    ).toThrow(ConfigError);
    const local = outboundSettings(
      loadConfig(
        { OUTBOUND_WEBHOOK_TRUSTED_ORIGINS: "http://127.0.0.1:4000/x", LAUNCHPAD_DATA_DIR: dir },
        dir,
      ),
    );
    expect(local.trustedOrigins).toEqual(["http://127.0.0.1:4000"]);
  });

  it("honours the test-mode clock only in test mode", () => {
    const env = { OUTBOUND_WEBHOOK_TIME_SCALE: "0.001", LAUNCHPAD_DATA_DIR: dir };
    expect(outboundSettings(loadConfig(env, dir)).timing.scheduleMs[1]).toBe(5_000);
    expect(
      outboundSettings(loadConfig({ ...env, LAUNCHPAD_ENV: "test" }, dir)).timing.scheduleMs[1],
    ).toBe(5);
  });

  it("derives the same secrets key in every process from the signer's master key, never the key itself", () => {
    const env = { STEWARD_MASTER_KEY: `0x${"ab".repeat(32)}`, LAUNCHPAD_DATA_DIR: dir };
    const a = outboundSettings(loadConfig(env, dir)).secretsKey;
    const b = outboundSettings(loadConfig(env, dir)).secretsKey;
    expect(a.equals(b)).toBe(true);
    expect(a.toString("hex")).not.toBe("ab".repeat(32));
    const sealed = seal(a, "whsec_x", "whsub_1");
    expect(unseal(b, sealed, "whsub_1")).toBe("whsec_x");
    // Bound to its row: the same sealed value does not open for another subscription.
    expect(() => unseal(b, sealed, "whsub_2")).toThrow();
  });

  it("spreads retries over 24 hours with bounded jitter, and stops after the last", () => {
    const timing = outboundTiming(1);
    const start = new Date("2026-01-01T00:00:00Z");
    const at = (n: number, r: number) =>
      nextAttemptAt({
        timing,
        cycleStartedAt: start,
        cycleAttempts: n,
        retryAfterSeconds: null,
        now: start,
        random: () => r,
      })?.getTime() ?? null;
    expect(at(1, 0.5)).toBe(start.getTime() + 5_000);
    expect(at(9, 0.5)).toBe(start.getTime() + 24 * 3_600_000);
    const gap = 4 * 3_600_000 * OUTBOUND_LIMITS.jitter;
    expect(at(9, 0)).toBe(start.getTime() + 24 * 3_600_000 - gap);
    expect(at(9, 1)).toBe(start.getTime() + 24 * 3_600_000 + gap);
    expect(at(10, 0.5)).toBeNull();
    // retry-after pushes later, never past the window's end.
    const late = nextAttemptAt({
      timing,
      cycleStartedAt: start,
      cycleAttempts: 1,
      retryAfterSeconds: 90,
      now: start,
      random: () => 0.5,
    });
    expect(late?.getTime()).toBe(start.getTime() + 90_000);
  });
});
