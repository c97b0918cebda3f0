// A keeper round in its own process, killed with SIGKILL right after its claims are stored and
// before they are broadcast: the worst moment for a duplicate (test/dividends/dividends.test.ts).
import pino from "pino";
import { createPublicClient, http, type PublicClient } from "viem";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { runDividendKeeper } from "../../jobs/dividends/keeper.ts";
import { createSql } from "../../lib/db/client.ts";

const [databaseUrl, rpcUrl, viewsSchema] = process.argv.slice(2) as [string, string, string];
const sql = createSql(databaseUrl, { appName: "keeper-kill" });
await runDividendKeeper({
  relayer: {
    sql,
    log: pino({ level: "silent" }),
    client: createPublicClient({ transport: http(rpcUrl) }) as PublicClient,
    relayer: devnetAccounts().relayer,
    chain: { id: 56 },
  },
  viewsSchema,
  budget: {
    minClaimWei: 1n,
    dailyBudgetWei: 10n ** 18n,
    maxTxsPerRound: 10,
    maxAccountsPerTx: 100,
  },
  afterSave: async () => {
    process.kill(process.pid, "SIGKILL");
  },
});
