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

/** Tells a supervising `launchpad start` that this role is up (no-op when run on its own). */
export function reportReady(): void {
  process.send?.({ type: "ready" });
}
