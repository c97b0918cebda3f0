import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freeListenPort, isPortFree } from "./net.ts";

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
});
