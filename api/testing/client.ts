import type { App } from "../app.ts";

let nextIp = 1;

/** A fresh client address, so rate-limit budgets of unrelated tests never meet. */
export function freshIp(): string {
  const n = nextIp++;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/**
 * `app.request()` as a client at `ip` (a fresh one by default), through the same socket
 * bindings @hono/node-server gives the app.
 */
export function requestAs(app: App, path: string, o: { ip?: string; init?: RequestInit } = {}) {
  return app.request(path, o.init, {
    incoming: { socket: { remoteAddress: o.ip ?? freshIp(), remotePort: 40000 } },
  });
}
