/**
 * Seconds in the rolling window of the 24-hour figures. The window ends at the chain's clock as
 * indexed: the timestamp of the newest indexed block, from the per-process tracker
 * (`indexed-block.ts`), not the server's clock, so every figure is consistent with the trades the
 * index holds (and a devnet's moved clock is honoured).
 */
export const DAY = 86_400;
