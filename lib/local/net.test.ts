import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freeListenPort, isPortFree, useListenPortRange } from "./net.ts";

describe("freeListenPort", () => {
  it("answers a port below the ephemeral range that a server can bind, and sees it taken then", async () => {
    const port = await freeListenPort();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(32_768);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    try {
      expect(await isPortFree(port)).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await isPortFree(port)).toBe(true);
  });

  it("never hands out the same port twice, even while none of them is bound", async () => {
    const before = useListenPortRange(20_000, 20_050);
    try {
      const ports = [];
      for (let i = 0; i < 40; i++) ports.push(await freeListenPort());
      expect(new Set(ports).size).toBe(40);
      expect(Math.min(...ports)).toBeGreaterThanOrEqual(20_000);
      expect(Math.max(...ports)).toBeLessThan(20_050);
    } finally {
      useListenPortRange(before.from, before.to);
    }
  });
});
