import { describe, expect, it } from "vitest";
import { clientBucket } from "./client-ip.ts";
import { expandIpv6 } from "./ipv6.ts";

describe("clientBucket", () => {
  it("keys IPv4 by address and IPv6 by its /64, so rotating inside a /64 buys no budget", () => {
    expect(clientBucket("203.0.113.7")).toBe("203.0.113.7");
    expect(clientBucket("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientBucket("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(clientBucket("2001:0db8:0001:0002:ffff:eeee:dddd:cccc")).toBe("2001:db8:1:2::/64");
    expect(clientBucket("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientBucket("::1")).toBe("0:0:0:0::/64");
    expect(clientBucket("unknown")).toBe("unknown");
  });

  it("expands every IPv6 spelling to eight groups", () => {
    expect(expandIpv6("::")).toEqual(Array(8).fill("0000"));
    expect(expandIpv6("64:ff9b::10.44.0.1")).toEqual([
      "0064",
      "ff9b",
      "0000",
      "0000",
      "0000",
      "0000",
      "0a2c",
      "0001",
    ]);
    expect(expandIpv6("fe80::1%eth0").at(-1)).toBe("0001");
    expect(expandIpv6("1:2:3:4:5:6:7:8")).toEqual([
      "0001",
      "0002",
      "0003",
      "0004",
      "0005",
      "0006",
      "0007",
      "0008",
    ]);
  });
});
