import type { PgBoss } from "pg-boss";
import type { Relayer } from "../../lib/relayer/nonce.ts";
import { DIVIDEND_KEEPER } from "../limits.ts";
import { runDividendKeeper } from "./keeper.ts";

/**
 * Schedules the dividend keeper (pg-boss cron, one round at a time) and handles it. A round that
 * fails leaves its stored claims for the next, which re-sends and settles them first.
 *
 * @example
 * const stop = await startDividendKeeperWorker({ boss, relayer, viewsSchema: "onchain" });
 */
export async function startDividendKeeperWorker(p: {
  boss: PgBoss;
  relayer: Relayer;
  viewsSchema: string;
}): Promise<() => Promise<void>> {
  await p.boss.createQueue(DIVIDEND_KEEPER.queue, {
    expireInSeconds: DIVIDEND_KEEPER.expireSeconds,
  });
  await p.boss.schedule(
    DIVIDEND_KEEPER.queue,
    DIVIDEND_KEEPER.cron,
    {},
    { retryLimit: 0, singletonKey: "round" },
  );
  await p.boss.work(
    DIVIDEND_KEEPER.queue,
    { pollingIntervalSeconds: DIVIDEND_KEEPER.pollSeconds },
    async () => {
      const r = await runDividendKeeper({ relayer: p.relayer, viewsSchema: p.viewsSchema });
      p.relayer.log.info(
        { settled: r.settled, sent: r.sent.length, held: r.held },
        "dividend keeper round",
      );
    },
  );
  return async () => {
    await p.boss.offWork(DIVIDEND_KEEPER.queue);
  };
}
