import { readFileSync, writeFileSync } from "node:fs";

/**
 * The public world the tests run in (`npm test` enters it: scripts/test.ts): a network and
 * mount namespace where the outside services have DNS names (a hosts file bound over
 * /etc/hosts) that resolve to public addresses, IPv4 and IPv6, carried by loopback and served
 * over TLS from a test CA. Production's code paths meet it as they meet the internet: no
 * trusted origin, no exception for loopback. The private targets are served too, so a refusal
 * is the guard's doing, never a missing server.
 *
 * Addresses come from example.com's own ranges (public, not special-purpose in IANA's
 * registries); names are under the reserved example domains (RFC 2606).
 */
export const WORLD_HOSTS = {
  /** Launch images, IPv4 only (an A record and no AAAA). */
  "images.example.net": ["93.184.216.34"],
  /** Launch images, IPv6 only. */
  "images6.example.net": ["2606:2800:220:1::1"],
  /** Webhook receivers, IPv4 only. */
  "hooks.example.org": ["93.184.216.35"],
  /** Webhook receivers, IPv6 only. */
  "hooks6.example.org": ["2606:2800:220:1::2"],
  /** The outside services (Steward, four.meme, the perps venue, Safe, X): both families. */
  "steward.example.com": ["93.184.216.36", "2606:2800:220:1::3"],
  "four-meme.example.com": ["93.184.216.36", "2606:2800:220:1::3"],
  "hyperliquid.example.com": ["93.184.216.36", "2606:2800:220:1::3"],
  "safe-transaction.example.com": ["93.184.216.36", "2606:2800:220:1::3"],
  "x-api.example.com": ["93.184.216.36", "2606:2800:220:1::3"],
  /** A name whose answer a test changes (DNS rebinding): `pointHost` moves it. */
  "rebind.example.com": ["93.184.216.37"],
  /** A name that resolves inside: the private address below. */
  "internal.example.com": ["10.44.0.1"],
  /** The cloud metadata address, by name. */
  "metadata.example.com": ["169.254.169.254"],
} as const satisfies Record<string, readonly string[]>;

export type WorldHost = keyof typeof WORLD_HOSTS;

/**
 * Private addresses loopback also carries (each served in the tests that aim at it): a
 * refusal of one proves the guard, since a connection would succeed.
 */
export const WORLD_PRIVATE = {
  tenNet: "10.44.0.1",
  metadata: "169.254.169.254",
  /** 10.44.0.1 behind the well-known NAT64 prefix (RFC 6052). */
  nat64: "64:ff9b::a2c:1",
} as const;

/** Every address the world's loopback carries besides 127.0.0.1 and ::1. */
export function worldAddresses(): string[] {
  return [...new Set([...Object.values(WORLD_HOSTS).flat(), ...Object.values(WORLD_PRIVATE)])];
}

/** What scripts/test.ts made for this run: the test CA and the one certificate of every name. */
export type WorldFiles = {
  dir: string;
  /** The test CA (PEM), also in NODE_EXTRA_CA_CERTS: every process of the run trusts it. */
  ca: string;
  /** A server certificate for every name and address of the world, signed by the CA. */
  cert: string;
  key: string;
  /** The hosts file bound over /etc/hosts: rewriting it changes every lookup in the world. */
  hosts: string;
};

/** The variable that names the world's files (JSON), set by scripts/test.ts inside the world. */
export const WORLD_VARIABLE = "LAUNCHPAD_WORLD";
/** Set instead, to the reason, when scripts/test.ts could not make the world. */
export const WORLD_UNAVAILABLE_VARIABLE = "LAUNCHPAD_WORLD_UNAVAILABLE";

/**
 * The world's files, or an error that says why this process is not in the world: a test that
 * needs it fails with that reason, it never skips.
 *
 * @example
 * const { cert, key } = worldFiles();
 */
export function worldFiles(): WorldFiles {
  const path = process.env[WORLD_VARIABLE];
  if (!path) {
    const why = process.env[WORLD_UNAVAILABLE_VARIABLE];
    throw new Error(
      why
        ? `the public world could not be made: ${why}`
        : "not in the public world: run the tests through `npm test [-- <file>]` (scripts/test.ts makes the world), not vitest alone",
    );
  }
  return JSON.parse(readFileSync(path, "utf8")) as WorldFiles;
}

/**
 * Makes `host` resolve to `addresses` from now on, for every process in the world (glibc reads
 * the hosts file at each lookup): DNS rebinding, as an attacker who owns the name would do it.
 * Only for a name no other test relies on (`rebind.example.com`).
 *
 * @example
 * pointHost("rebind.example.com", [WORLD_PRIVATE.tenNet]);
 */
export function pointHost(host: WorldHost, addresses: readonly string[]): void {
  const { hosts } = worldFiles();
  const kept = readFileSync(hosts, "utf8")
    .split("\n")
    .filter((line) => line && line.split(/\s+/)[1] !== host);
  writeFileSync(hosts, `${[...kept, ...addresses.map((a) => `${a} ${host}`)].join("\n")}\n`);
}
