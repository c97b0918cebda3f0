import { index, onchainTable } from "ponder";

/** A token created on the launchpad (TokenManager2 `TokenCreate`). Amounts in wei. */
export const token = onchainTable(
  "token",
  (t) => ({
    address: t.hex().primaryKey(),
    creator: t.hex().notNull(),
    requestId: t.bigint().notNull(),
    name: t.text().notNull(),
    symbol: t.text().notNull(),
    totalSupply: t.bigint().notNull(),
    launchTime: t.bigint().notNull(),
    launchFee: t.bigint().notNull(),
    createdBlock: t.bigint().notNull(),
    createdTx: t.hex().notNull(),
    createdAt: t.bigint().notNull(),
  }),
  (t) => ({ creatorIdx: index().on(t.creator) }),
);
