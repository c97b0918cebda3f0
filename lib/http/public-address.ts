import { type LookupAddress, lookup } from "node:dns";
import { BlockList, isIP } from "node:net";

/** Addresses a server-side fetch must never reach (private, loopback, link-local, reserved). */
const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  FORBIDDEN.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["::ffff:0:0", 96],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  FORBIDDEN.addSubnet(net, bits, "ipv6");

/**
 * True for an address a server-side fetch may connect to.
 *
 * @example
 * isPublicAddress("10.0.0.1"); // false
 */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  return !FORBIDDEN.check(ip, family === 4 ? "ipv4" : "ipv6");
}

/** Thrown (code EPRIVATE) when a host has no public address to connect to. */
export class PrivateAddressError extends Error {
  override name = "PrivateAddressError";
  readonly code = "EPRIVATE";
}

/**
 * A `lookup` for sockets (undici's `connect.lookup`) that resolves the host itself and hands
 * the socket only a public address: the connection is pinned to the IP that was checked, so
 * a DNS answer changing between check and connect (DNS rebinding) cannot reach inside.
 *
 * @example
 * new Agent({ connect: { lookup: publicOnlyLookup } });
 */
export function publicOnlyLookup(
  hostname: string,
  _options: unknown,
  callback: (error: Error | null, address: string, family: number) => void,
): void {
  lookup(hostname, { all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 4);
    const ok = addresses.find((a) => isPublicAddress(a.address));
    if (!ok) {
      return callback(
        new PrivateAddressError(`${hostname} resolves only to private addresses`),
        "",
        4,
      );
    }
    callback(null, ok.address, ok.family);
  });
}

/**
 * Whether a URL's host may be fetched: a literal address must be public, a name must resolve
 * to at least one public address. Returns the reason when it may not.
 *
 * @example
 * await publicHostProblem(new URL("https://10.0.0.1/")); // "… private, loopback or link-local …"
 */
export async function publicHostProblem(url: URL): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) {
    return isPublicAddress(host)
      ? undefined
      : `${host} is a private, loopback or link-local address`;
  }
  return new Promise((resolve) => {
    publicOnlyLookup(host, {}, (error) => {
      if (!error) return resolve(undefined);
      resolve(
        error instanceof PrivateAddressError
          ? `${host} resolves to a private, loopback or link-local address`
          : `${host} does not resolve (${(error as { code?: string }).code ?? error.message})`,
      );
    });
  });
}
