import { type LookupAddress, lookup } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { expandIpv6 } from "./ipv6.ts";
import { IPV4_SPECIAL, IPV6_SPECIAL, type SpecialBlock } from "./special-addresses.ts";

type Compiled = SpecialBlock & { net: bigint; bits: number };

function compile(table: readonly SpecialBlock[], width: number): Compiled[] {
  return table
    .map((b) => {
      const [address = "", bits = ""] = b.block.split("/");
      const value = toBigInt(address);
      if (value === undefined) throw new Error(`bad block ${b.block}`);
      return { ...b, net: value >> BigInt(width - Number(bits)), bits: Number(bits) };
    })
    .sort((a, b) => b.bits - a.bits); // most specific first: it overrides a wider block
}
const V4 = compile(IPV4_SPECIAL, 32);
const V6 = compile(IPV6_SPECIAL, 128);

/** An address as an integer (32 bits for IPv4, 128 for IPv6), or undefined if it is none. */
function toBigInt(ip: string): bigint | undefined {
  const family = isIP(ip);
  if (family === 4) return ip.split(".").reduce((n, o) => (n << 8n) | BigInt(o), 0n);
  if (family === 6)
    return expandIpv6(ip).reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
  return undefined;
}

function blockOf(table: Compiled[], value: bigint, width: number): Compiled | undefined {
  return table.find((b) => value >> BigInt(width - b.bits) === b.net);
}

const v4Public = (v: bigint) => blockOf(V4, v, 32)?.reachable ?? true;
const low32 = (v: bigint) => v & 0xffffffffn;

/**
 * True for an address a server-side fetch may connect to: globally reachable by IANA's
 * special-purpose registries (special-addresses.ts). An IPv6 address that carries an IPv4 one
 * (mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32, whose server
 * and client addresses both count) is judged by the IPv4 inside: a translator or relay would
 * deliver to it.
 *
 * @example
 * isPublicAddress("93.184.216.34"); // true
 * isPublicAddress("64:ff9b::a00:1"); // false: 10.0.0.1 through NAT64
 */
export function isPublicAddress(ip: string): boolean {
  const value = toBigInt(ip);
  if (value === undefined) return false;
  if (isIP(ip) === 4) return v4Public(value);
  const block = blockOf(V6, value, 128);
  switch (block?.block) {
    case "::ffff:0:0/96":
    case "64:ff9b::/96":
      return v4Public(low32(value));
    case "2002::/16":
      return v4Public(low32(value >> 80n));
    case "2001::/32": // Teredo: the server, then the client (stored inverted, RFC 4380)
      return v4Public(low32(value >> 64n)) && v4Public(low32(~value));
    default:
      return block?.reachable ?? false;
  }
}

/** Thrown (code EPRIVATE) when a host has no public address to connect to. */
export class PrivateAddressError extends Error {
  override name = "PrivateAddressError";
  readonly code = "EPRIVATE";
}

/**
 * A `lookup` for sockets (undici's `connect.lookup`) that resolves the host itself and hands
 * the socket only public addresses: the connection is pinned to an IP that was checked, so a
 * DNS answer changing between check and connect (DNS rebinding) cannot reach inside. Honours
 * `all` (Node's `net` asks for every address to race the families, RFC 8305) and `family`.
 *
 * @example
 * new Agent({ connect: { lookup: publicOnlyLookup } });
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { all: true, family: options.family ?? 0 }, (error, found: LookupAddress[]) => {
    if (error) return callback(error, "", 4);
    const ok = found.filter((a) => isPublicAddress(a.address));
    const first = ok[0];
    if (!first) {
      return callback(
        new PrivateAddressError(`${hostname} resolves only to private addresses`),
        "",
        4,
      );
    }
    if (options.all) return callback(null, ok);
    callback(null, first.address, first.family);
  });
};

/**
 * Whether a URL's host may be fetched: a literal address must be public, a name must resolve
 * to at least one public address. Returns the reason when it may not, in one wording whether
 * a name does not resolve or resolves inside: a caller cannot learn our internal names by it.
 *
 * @example
 * await publicHostProblem(new URL("https://10.0.0.1/")); // "10.0.0.1 is not a public address"
 */
export async function publicHostProblem(url: URL): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return isPublicAddress(host) ? undefined : `${host} is not a public address`;
  return new Promise((resolve) => {
    publicOnlyLookup(host, {}, (error) =>
      resolve(error ? `${host} does not resolve to a public address` : undefined),
    );
  });
}
