import { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WEB_LIMITS } from "./limits.ts";
import { visitorLimit } from "./visitor-limit.ts";

// The per-visitor page limit on its own, at its real capacity (WEB_LIMITS.visitorsTracked):
// what a flood of new addresses does to the visitors already counted.

const PER_MINUTE = 3;
const from = (ip: string) => ({ incoming: { socket: { remoteAddress: ip } } });
/** The n-th address of a flood: one IPv4 address each (every one its own visitor). */
const flooder = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

function limitedApp() {
  const app = new Hono();
  app.use(
    visitorLimit({ perMinute: PER_MINUTE, trustProxy: 0, limited: (c) => c.text("slow", 429) }),
  );
  app.get("/page", (c) => c.text("ok"));
  return async (ip: string) => (await app.request("/page", {}, from(ip))).status;
}

// Windows are whole minutes of the clock: hold it still so the flood stays inside one.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.UTC(2026, 0, 1, 12, 0, 1));
});
afterEach(() => vi.useRealTimers());

describe("visitorLimit", () => {
  it("keeps refusing a heavy visitor through a flood of new addresses past its capacity, forgetting the least recently seen instead", async () => {
    const view = limitedApp();
    const heavy = "198.51.100.7";
    const quiet = "198.51.100.8";
    for (let i = 0; i < PER_MINUTE; i++) expect(await view(quiet)).toBe(200);
    const seen = [];
    for (let i = 0; i <= PER_MINUTE; i++) seen.push(await view(heavy));
    expect(seen).toEqual([200, 200, 200, 429]);

    // More new addresses than the limit tracks, the heavy visitor still calling among them.
    const refused = new Set<number>();
    for (let n = 0; n < WEB_LIMITS.visitorsTracked + 1_000; n++) {
      await view(flooder(n));
      if (n % 1_000 === 0) refused.add(await view(heavy));
    }
    expect([...refused]).toEqual([429]);
    expect(await view(heavy)).toBe(429);
    // The quiet visitor, not seen since the flood began, was forgotten: memory stays bounded.
    expect(await view(quiet)).toBe(200);
  }, 120_000);
});
