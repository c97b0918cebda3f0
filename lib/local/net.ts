import { createServer } from "node:net";

/** Asks the OS for a free TCP port on `host` (the port may be taken again before use). */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("no port assigned"));
      });
    });
  });
}

const LISTEN_PORTS = { from: 20_000, to: 32_000 };
/** Ports this process already handed out: they are free until their server binds them. */
const handedOut = new Set<number>();

/**
 * Narrows the range `freeListenPort` draws from, so that processes picking ports side by
 * side (test workers) draw from disjoint slices and cannot pick the same unbound port.
 */
export function useListenPortRange(from: number, to: number): { from: number; to: number } {
  if (!(20_000 <= from && from < to && to <= 32_000)) {
    throw new RangeError(`bad port range ${from}-${to}`);
  }
  const before = { ...LISTEN_PORTS };
  LISTEN_PORTS.from = from;
  LISTEN_PORTS.to = to;
  return before;
}

/**
 * A free TCP port below Linux's ephemeral range (32768 and up), for a server that is bound
 * later or again after a restart: a port from `freePort` is an ephemeral one, which any
 * outgoing connection of the machine may take as its own local port in between. A port is
 * handed out once per process: several picked before any is bound never collide.
 */
export async function freeListenPort(host = "127.0.0.1"): Promise<number> {
  const span = LISTEN_PORTS.to - LISTEN_PORTS.from;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LISTEN_PORTS.from + Math.floor(Math.random() * span);
    if (handedOut.has(port) || !(await isPortFree(port, host))) continue;
    handedOut.add(port);
    return port;
  }
  return freePort(host);
}

/** True when nothing listens on `host:port` (binding it succeeds). */
export function isPortFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
