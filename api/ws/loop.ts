/**
 * Runs `step` whenever woken, never twice at once: a wake-up during a run makes it run again
 * once; `step` returning true (a full batch) makes it run again at once.
 */
export class Loop {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly step: () => Promise<boolean>;
  private readonly onError: (error: unknown) => void;

  constructor(step: () => Promise<boolean>, onError: (error: unknown) => void) {
    this.step = step;
    this.onError = onError;
  }

  /** Wakes the loop; resolves when the run it joined (or started) ends. */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  stop(): void {
    this.stopped = true;
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      try {
        if (await this.step()) this.again = true;
      } catch (error) {
        this.onError(error);
        return;
      }
    } while (this.again && !this.stopped);
  }
}
