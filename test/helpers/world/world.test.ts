import { lookup } from "node:dns/promises";
import { describe, expect, it } from "vitest";
import { serveWorld } from "./serve.ts";
import { WORLD_HOSTS, worldFiles } from "./world.ts";

// The world every test of an outside fetch relies on: if it is not what it claims (names,
// families, TLS from the test CA), those tests would prove nothing.
describe("the public world", () => {
  it("exists: `npm test` made it, or this fails saying why", () => {
    expect(worldFiles().ca).toMatch(/ca\.pem$/);
    expect(process.env.NODE_EXTRA_CA_CERTS).toBe(worldFiles().ca);
  });

  it("names its hosts with public addresses, one family or both, as DNS would", async () => {
    // rebind.example.com is moved by a test of its own.
    for (const [name, addresses] of Object.entries(WORLD_HOSTS).filter(
      ([n]) => !n.startsWith("rebind"),
    )) {
      const found = await lookup(name, { all: true });
      expect(found.map((a) => a.address).sort(), name).toEqual([...addresses].sort());
    }
  });

  it("serves a host over TLS by name on each of its families, trusted through the test CA", async () => {
    for (const host of ["images.example.net", "images6.example.net"] as const) {
      const server = await serveWorld(host, (req, res) => res.end(req.socket.localAddress));
      try {
        const res = await fetch(`${server.origin}/`);
        expect(await res.text()).toContain(WORLD_HOSTS[host][0]);
      } finally {
        await server.close();
      }
    }
  });
});
