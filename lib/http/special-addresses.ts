/**
 * IANA's special-purpose address registries (RFC 6890), as they stand: every block, with
 * whether the registry calls it globally reachable. "N/A" blocks (6to4, Teredo, the deprecated
 * 6to4 relay anycast) are `false` here; the forms that embed an IPv4 address are judged by that
 * address instead (public-address.ts). Sources:
 * https://www.iana.org/assignments/iana-ipv4-special-registry/
 * https://www.iana.org/assignments/iana-ipv6-special-registry/
 * and, outside those registries, multicast (RFC 5771, RFC 4291) and the space outside IPv6's
 * global unicast 2000::/3 (IANA's IPv6 address space registry; fec0::/10 site-local, RFC 3879,
 * and the IPv4-compatible ::/96, RFC 4291 2.5.5.1, are both deprecated and both outside it).
 */
export type SpecialBlock = {
  block: string;
  name: string;
  rfc: string;
  /** The registry's "Globally Reachable"; a more specific block overrides a wider one. */
  reachable: boolean;
};

export const IPV4_SPECIAL: readonly SpecialBlock[] = [
  { block: "0.0.0.0/8", name: '"This network"', rfc: "RFC 791", reachable: false },
  { block: "0.0.0.0/32", name: '"This host on this network"', rfc: "RFC 1122", reachable: false },
  { block: "10.0.0.0/8", name: "Private-Use", rfc: "RFC 1918", reachable: false },
  { block: "100.64.0.0/10", name: "Shared Address Space", rfc: "RFC 6598", reachable: false },
  { block: "127.0.0.0/8", name: "Loopback", rfc: "RFC 1122", reachable: false },
  { block: "169.254.0.0/16", name: "Link Local", rfc: "RFC 3927", reachable: false },
  { block: "172.16.0.0/12", name: "Private-Use", rfc: "RFC 1918", reachable: false },
  { block: "192.0.0.0/24", name: "IETF Protocol Assignments", rfc: "RFC 6890", reachable: false },
  {
    block: "192.0.0.0/29",
    name: "IPv4 Service Continuity Prefix",
    rfc: "RFC 7335",
    reachable: false,
  },
  { block: "192.0.0.8/32", name: "IPv4 dummy address", rfc: "RFC 7600", reachable: false },
  {
    block: "192.0.0.9/32",
    name: "Port Control Protocol Anycast",
    rfc: "RFC 7723",
    reachable: true,
  },
  {
    block: "192.0.0.10/32",
    name: "Traversal Using Relays around NAT Anycast",
    rfc: "RFC 8155",
    reachable: true,
  },
  { block: "192.0.0.170/32", name: "NAT64/DNS64 Discovery", rfc: "RFC 8880", reachable: false },
  { block: "192.0.0.171/32", name: "NAT64/DNS64 Discovery", rfc: "RFC 8880", reachable: false },
  { block: "192.0.2.0/24", name: "Documentation (TEST-NET-1)", rfc: "RFC 5737", reachable: false },
  { block: "192.31.196.0/24", name: "AS112-v4", rfc: "RFC 7535", reachable: true },
  { block: "192.52.193.0/24", name: "AMT", rfc: "RFC 7450", reachable: true },
  {
    block: "192.88.99.0/24",
    name: "Deprecated (6to4 Relay Anycast)",
    rfc: "RFC 7526",
    reachable: false,
  },
  { block: "192.168.0.0/16", name: "Private-Use", rfc: "RFC 1918", reachable: false },
  {
    block: "192.175.48.0/24",
    name: "Direct Delegation AS112 Service",
    rfc: "RFC 7534",
    reachable: true,
  },
  { block: "198.18.0.0/15", name: "Benchmarking", rfc: "RFC 2544", reachable: false },
  {
    block: "198.51.100.0/24",
    name: "Documentation (TEST-NET-2)",
    rfc: "RFC 5737",
    reachable: false,
  },
  {
    block: "203.0.113.0/24",
    name: "Documentation (TEST-NET-3)",
    rfc: "RFC 5737",
    reachable: false,
  },
  { block: "224.0.0.0/4", name: "Multicast", rfc: "RFC 5771", reachable: false },
  { block: "240.0.0.0/4", name: "Reserved", rfc: "RFC 1112", reachable: false },
  { block: "255.255.255.255/32", name: "Limited Broadcast", rfc: "RFC 919", reachable: false },
];

export const IPV6_SPECIAL: readonly SpecialBlock[] = [
  // IANA's IPv6 address space: only 2000::/3 is global unicast.
  { block: "::/0", name: "Outside global unicast", rfc: "RFC 4291", reachable: false },
  { block: "2000::/3", name: "Global Unicast", rfc: "RFC 4291", reachable: true },
  // The special-purpose registry.
  { block: "::1/128", name: "Loopback Address", rfc: "RFC 4291", reachable: false },
  { block: "::/128", name: "Unspecified Address", rfc: "RFC 4291", reachable: false },
  { block: "::ffff:0:0/96", name: "IPv4-mapped Address", rfc: "RFC 4291", reachable: false },
  { block: "64:ff9b::/96", name: "IPv4-IPv6 Translat.", rfc: "RFC 6052", reachable: true },
  { block: "64:ff9b:1::/48", name: "IPv4-IPv6 Translat.", rfc: "RFC 8215", reachable: false },
  { block: "100::/64", name: "Discard-Only Address Block", rfc: "RFC 6666", reachable: false },
  { block: "100:0:0:1::/64", name: "Dummy IPv6 Prefix", rfc: "RFC 9780", reachable: false },
  { block: "2001::/23", name: "IETF Protocol Assignments", rfc: "RFC 2928", reachable: false },
  { block: "2001::/32", name: "TEREDO", rfc: "RFC 4380", reachable: false },
  {
    block: "2001:1::1/128",
    name: "Port Control Protocol Anycast",
    rfc: "RFC 7723",
    reachable: true,
  },
  { block: "2001:1::2/128", name: "TURN Anycast", rfc: "RFC 8155", reachable: true },
  {
    block: "2001:1::3/128",
    name: "DNS-SD Service Registration Protocol Anycast",
    rfc: "RFC 9665",
    reachable: true,
  },
  { block: "2001:2::/48", name: "Benchmarking", rfc: "RFC 5180", reachable: false },
  { block: "2001:3::/32", name: "AMT", rfc: "RFC 7450", reachable: true },
  { block: "2001:4:112::/48", name: "AS112-v6", rfc: "RFC 7535", reachable: true },
  {
    block: "2001:10::/28",
    name: "Deprecated (previously ORCHID)",
    rfc: "RFC 4843",
    reachable: false,
  },
  { block: "2001:20::/28", name: "ORCHIDv2", rfc: "RFC 7343", reachable: true },
  {
    block: "2001:30::/28",
    name: "Drone Remote ID Protocol Entity Tags (DETs) Prefix",
    rfc: "RFC 9374",
    reachable: true,
  },
  { block: "2001:db8::/32", name: "Documentation", rfc: "RFC 3849", reachable: false },
  { block: "2002::/16", name: "6to4", rfc: "RFC 3056", reachable: false },
  {
    block: "2620:4f:8000::/48",
    name: "Direct Delegation AS112 Service",
    rfc: "RFC 7534",
    reachable: true,
  },
  { block: "3fff::/20", name: "Documentation", rfc: "RFC 9637", reachable: false },
  { block: "5f00::/16", name: "Segment Routing (SRv6) SIDs", rfc: "RFC 9602", reachable: false },
  { block: "fc00::/7", name: "Unique-Local", rfc: "RFC 4193", reachable: false },
  { block: "fe80::/10", name: "Link-Local Unicast", rfc: "RFC 4291", reachable: false },
  { block: "fec0::/10", name: "Site-Local (deprecated)", rfc: "RFC 3879", reachable: false },
  { block: "ff00::/8", name: "Multicast", rfc: "RFC 4291", reachable: false },
];
