import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freeListenPort, isPortFree, portHolders, useListenPortRange } from "./net.ts";

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

describe("portHolders", () => {
  it("names the process listening on a port, and nobody once it is free", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      expect(await portHolders(port)).toMatch(new RegExp(`LISTEN by pid ${process.pid}: .*node`));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await portHolders(port)).toBe("");
  });
});
