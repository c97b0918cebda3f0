/** What `startTicker` runs. */
export type StartTickerParameters = {
  /** One round. A round still running when the next is due is skipped, never run twice at once. */
  tick: () => Promise<unknown>;
  everyMs: number;
  /** Runs the first round at once, not after `everyMs`. */
  immediately?: boolean;
  /** A round's error (the next round runs as usual). */
  onError?: (error: unknown) => void;
};

/** A running ticker. */
export type StartTickerReturnType = {
  /** Stops the rounds and resolves once the one in flight, if any, has ended. */
  stop: () => Promise<void>;
};

/**
 * Runs `tick` every `everyMs`, one round at a time: a round that outlasts the interval makes
 * the next ones wait, not pile up (a slow database or RPC would otherwise stack rounds on it).
 * The timer does not keep the process alive.
 *
 * @example
 * const heartbeat = startTicker({ tick: () => beat(sql), everyMs: 5_000, immediately: true });
 * await heartbeat.stop();
 */
export function startTicker(p: StartTickerParameters): StartTickerReturnType {
  let running: Promise<void> | undefined;
  const round = () => {
    if (running) return;
    running = Promise.resolve()
      .then(p.tick)
      .then(
        () => undefined,
        (error: unknown) => p.onError?.(error),
      )
      .finally(() => {
        running = undefined;
      });
  };
  if (p.immediately) round();
  const timer = setInterval(round, p.everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
