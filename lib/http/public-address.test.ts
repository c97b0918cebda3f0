import { isIP } from "node:net";
import { describe, expect, it } from "vitest";
import { expandIpv6 } from "./ipv6.ts";
import { isPublicAddress, publicHostProblem } from "./public-address.ts";
import { IPV4_SPECIAL, IPV6_SPECIAL, type SpecialBlock } from "./special-addresses.ts";

// The guard's table is IANA's two special-purpose registries: every block's first and last
// address must get the registry's verdict (unless a more specific block says otherwise), the
// forms that carry an IPv4 address are judged by it, and public addresses of both families pass.

const big = (ip: string) =>
  isIP(ip) === 4
    ? ip.split(".").reduce((n, o) => (n << 8n) | BigInt(o), 0n)
    : expandIpv6(ip).reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
const v4 = (n: bigint) => [24n, 16n, 8n, 0n].map((s) => (n >> s) & 255n).join(".");
const v6 = (n: bigint) =>
  Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(
    ":",
  );

function ends(b: SpecialBlock, width: number) {
  const [net = "", bits = ""] = b.block.split("/");
  const host = BigInt(width - Number(bits));
  const first = (big(net) >> host) << host;
  const last = first | ((1n << host) - 1n);
  const show = width === 32 ? v4 : v6;
  return [first, last].map((n) => ({ n, ip: show(n) }));
}
const inside = (b: SpecialBlock, n: bigint, width: number) => {
  const [net = "", bits = ""] = b.block.split("/");
  const host = BigInt(width - Number(bits));
  return n >> host === big(net) >> host;
};
/** Blocks judged by the IPv4 address they carry, tested on their own below. */
const EMBEDDING = new Set(["::ffff:0:0/96", "64:ff9b::/96", "2002::/16", "2001::/32"]);

describe("isPublicAddress, from IANA's special-purpose registries", () => {
  for (const [table, width] of [
    [IPV4_SPECIAL, 32],
    [IPV6_SPECIAL, 128],
  ] as const) {
    for (const b of table.filter((b) => !EMBEDDING.has(b.block) && b.block !== "::/0")) {
      it(`${b.block} (${b.name}, ${b.rfc}): ${b.reachable ? "reachable" : "refused"}`, () => {
        const bits = Number(b.block.split("/")[1]);
        for (const { n, ip } of ends(b, width)) {
          // A more specific block (a reachable anycast inside a refused range) decides its own.
          const narrower = table.some(
            (o) => o !== b && Number(o.block.split("/")[1]) > bits && inside(o, n, width),
          );
          if (!narrower) expect(isPublicAddress(ip), ip).toBe(b.reachable);
        }
      });
    }
  }

  it("passes public addresses of both families", () => {
    for (const ip of [
      "8.8.8.8",
      "1.1.1.1",
      "93.184.216.34",
      "2606:4700:4700::1111",
      "2001:4860:4860::8888",
      "2606:2800:220:1::1",
    ])
      expect(isPublicAddress(ip), ip).toBe(true);
  });

  it("judges mapped, NAT64, 6to4 and Teredo addresses by the IPv4 address they carry", () => {
    const cases: [string, boolean][] = [
      ["::ffff:8.8.8.8", true],
      ["::ffff:10.0.0.1", false],
      ["::ffff:127.0.0.1", false],
      ["::ffff:169.254.169.254", false],
      ["64:ff9b::808:808", true],
      ["64:ff9b::10.44.0.1", false],
      ["64:ff9b::a9fe:a9fe", false],
      ["2002:808:808::1", true],
      ["2002:a00:1::1", false],
      ["2002:7f00:1::1", false],
      // Teredo: server 8.8.8.8, client 1.1.1.1 (inverted: fefe:fefe) / 10.0.0.1 / server 127.0.0.1
      ["2001:0:808:808::fefe:fefe", true],
      ["2001:0:808:808::f5ff:fffe", false],
      ["2001:0:7f00:1::fefe:fefe", false],
    ];
    for (const [ip, ok] of cases) expect(isPublicAddress(ip), ip).toBe(ok);
  });

  it("refuses the deprecated and unallocated IPv6 ranges that reach inside", () => {
    for (const ip of [
      "64:ff9b:1::808:808",
      "::10.0.0.1",
      "::8.8.8.8",
      "fec0::1",
      "ff02::1",
      "4000::1",
      "fe80::1%eth0",
      "not an address",
      "",
    ])
      expect(isPublicAddress(ip), ip).toBe(false);
  });
});

describe("publicHostProblem", () => {
  it("words a name that does not resolve as it words one that resolves inside", async () => {
    const missing = await publicHostProblem(new URL("https://no-such-host.invalid/x"));
    const inside = await publicHostProblem(new URL("https://localhost/x"));
    expect(missing).toBe("no-such-host.invalid does not resolve to a public address");
    expect(inside).toBe("localhost does not resolve to a public address");
    expect(await publicHostProblem(new URL("https://[::ffff:10.0.0.1]/"))).toBe(
      "::ffff:a00:1 is not a public address",
    );
  });
});
