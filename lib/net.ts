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

/**
 * A free TCP port below Linux's ephemeral range (32768 and up), for a server that is bound
 * later or again after a restart: a port from `freePort` is an ephemeral one, which any
 * outgoing connection of the machine may take as its own local port in between.
 */
export async function freeListenPort(host = "127.0.0.1"): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await isPortFree(port, host)) return port;
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
