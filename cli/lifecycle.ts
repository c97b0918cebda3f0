import { ConfigError } from "../lib/config.ts";
import type { Logger } from "../lib/logger.ts";

/**
 * Runs `stop` once on SIGINT, SIGTERM, or when the supervising parent goes away (its IPC
 * channel closes, so a role never outlives a supervisor that was killed hard), then exits 0.
 * A second signal while stopping exits 1 at once.
 */
export function onShutdown(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = (reason: string) => {
    if (stopping) {
      log.warn({ reason }, "forced exit");
      process.exit(1);
    }
    stopping = true;
    log.info({ reason }, "stopping");
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, "stop failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => handle("SIGINT"));
  process.on("SIGTERM", () => handle("SIGTERM"));
  if (process.send) process.on("disconnect", () => handle("supervisor gone"));
}

/** Turns "address in use" from a listen into a one-line configuration error. */
export function isAddressInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "EADDRINUSE";
}

/**
 * For a listen's `.catch`: a taken port becomes a one-line configuration error naming the
 * variable that set it; any other error passes on.
 *
 * @example
 * await serveHttp({ fetch, host, port }).catch(portTaken("PORT", `${host}:${port}`));
 */
export function portTaken(variable: string, address: string) {
  return (error: unknown): never => {
    if (isAddressInUse(error)) throw new ConfigError(variable, `${address} is already in use`);
    throw error;
  };
}

/** Tells a supervising `launchpad start` that this role is up (no-op when run on its own). */
export function reportReady(): void {
  process.send?.({ type: "ready" });
}

/** Codes of a database or network connection lost or refused: what the roles retry. */
const LOST_CONNECTION = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "57P01", // terminated by the administrator (a restart)
  "57P02", // crash shutdown
  "57P03", // the database is starting up or shutting down
]);

/**
 * Keeps a role running through a promise rejected with a lost or refused connection that no code
 * awaited. During a database restart such a rejection ended an API now and then (`read
 * ECONNRESET`, thrown from the socket with no caller on its stack, so the owner could not be
 * found); the work it belonged to had already failed and is retried by its loop. Any other
 * unhandled rejection still ends the process with exit 1, as Node does. The API and the worker
 * install it; not the indexer role, whose crash the restart test relies on to get Ponder past an
 * RPC restart (with it installed, that test's index stood still).
 */
export function surviveLostConnections(log: Logger): void {
  process.on("unhandledRejection", (reason) => {
    const code = (reason as { code?: unknown } | null)?.code;
    if (typeof code === "string" && LOST_CONNECTION.has(code)) {
      log.warn({ err: reason }, "a lost connection no code awaited; carrying on");
      return;
    }
    console.error(reason);
    process.exit(1);
  });
}
