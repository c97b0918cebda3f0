import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { startSafeTxServiceStandIn } from "./start.ts";

// The hosted Safe API's 5 requests a second per API key, in the stand-in: 429 `{"detail"}` past
// it, a key's count apart from another's and from keyless clients (counted per address), served
// again after the second, and a test that needs more says so (`requestsPerSecond`).

const log = pino({ level: "silent" });
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const s of stops) await s();
});
const safe = privateKeyToAddress(`0x${"11".repeat(32)}`);

async function stand(requestsPerSecond?: number) {
  const s = await startSafeTxServiceStandIn({ chainId: 56, log, requestsPerSecond });
  stops.push(s.stop);
  return (key?: string) =>
    fetch(`${s.url}/api/v2/safes/${safe}/multisig-transactions/`, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });
}

describe("the Safe Transaction Service stand-in's rate limit", () => {
  it("serves 5 a second per API key, then 429 with the service's error shape", async () => {
    const list = await stand();
    // Sent together: all six fall within one second however slow the machine is.
    const burst = (key?: string) => Promise.all(Array.from({ length: 6 }, () => list(key)));
    const a = await burst("key-a");
    expect(a.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = a.find((r) => r.status === 429);
    expect(await refused?.json()).toEqual({ detail: expect.any(String) });
    // Another key, and a client without one, have their own counts.
    expect((await list("key-b")).status).toBe(200);
    const keyless = await burst();
    expect(keyless.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it("serves again once the second has passed", async () => {
    const list = await stand();
    const a = await Promise.all(Array.from({ length: 6 }, () => list("key-a")));
    expect(a.map((r) => r.status)).toContain(429);
    let status = 429;
    for (let i = 0; i < 50 && status === 429; i++) {
      await sleep(100);
      status = (await list("key-a")).status;
    }
    expect(status).toBe(200);
  });

  it("takes a higher limit when a test asks for one", async () => {
    const list = await stand(20);
    const a = await Promise.all(Array.from({ length: 21 }, () => list("key-a")));
    expect(a.filter((r) => r.status === 200)).toHaveLength(20);
  });
});
