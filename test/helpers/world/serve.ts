import type { RequestListener, Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { isIP } from "node:net";
import { freeListenPort } from "../../../lib/local/net.ts";
import { WORLD_HOSTS, type WorldHost, worldFiles } from "./world.ts";

export type WorldServer = {
  /** `https://<name>:<port>` */
  origin: string;
  port: number;
  close: () => Promise<void>;
};

/**
 * Serves `listener` over TLS (the world's certificate) at a host of the public world, on each
 * of its addresses and one free port: a client reaches it by name as it would on the internet.
 *
 * @example
 * const images = await serveWorld("images.example.net", (_q, r) => r.end(png));
 * await checkImage({ url: `${images.origin}/a.png`, trustedOrigins: [] });
 */
export async function serveWorld(
  host: WorldHost,
  listener: RequestListener,
  o: { port?: number } = {},
): Promise<WorldServer> {
  const { cert, key } = worldFiles();
  const addresses: readonly string[] = WORLD_HOSTS[host];
  const servers = addresses.map(() => createHttpsServer({ cert, key }, listener));
  const port = await listenAll(servers, addresses, o.port);
  return { origin: `https://${host}:${port}`, port, close: () => closeAll(servers) };
}

/**
 * Serves `listener` over TLS on one private address (loopback, 10/8, the metadata address, the
 * NAT64 one), with a certificate valid for it: a fetch that got past the guard would succeed,
 * so a refusal is the guard's.
 *
 * @example
 * const inside = await servePrivate(WORLD_PRIVATE.tenNet, (_q, r) => r.end(png));
 */
export async function servePrivate(
  address: string,
  listener: RequestListener,
  o: { port?: number } = {},
): Promise<WorldServer> {
  const { cert, key } = worldFiles();
  const server = createHttpsServer({ cert, key }, listener);
  const port = await listenAll([server], [address], o.port);
  const host = isIP(address) === 6 ? `[${address}]` : address;
  return { origin: `https://${host}:${port}`, port, close: () => closeAll([server]) };
}

/** Listens on `fixed`, or on one port free on every address (tried until one is). */
async function listenAll(
  servers: Server[],
  addresses: readonly string[],
  fixed?: number,
): Promise<number> {
  for (let attempt = 0; attempt < (fixed ? 1 : 20); attempt++) {
    const port = fixed ?? (await freeListenPort(addresses[0]));
    const bound: Server[] = [];
    try {
      for (const [i, s] of servers.entries()) {
        await new Promise<void>((resolve, reject) => {
          s.once("error", reject);
          s.listen(port, addresses[i], () => {
            s.off("error", reject);
            resolve();
          });
        });
        bound.push(s);
      }
      return port;
    } catch {
      await closeAll(bound);
    }
  }
  throw new Error(`no port free on ${addresses.join(", ")}${fixed ? ` (asked for ${fixed})` : ""}`);
}

async function closeAll(servers: Server[]): Promise<void> {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((r) => {
          s.closeAllConnections?.();
          s.close(() => r());
        }),
    ),
  );
}
