import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import {
  type Chain,
  createPublicClient,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  parseEther,
} from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { DEVNET_CHAIN_ID, type StartAnvilReturnType, startAnvil } from "../../devnet/anvil.ts";
import type { SagaContext } from "../../jobs/launch/context.ts";
import { settleRelayerTx } from "../../jobs/launch/settle-relayer-tx.ts";
import { viemChain } from "../../lib/chain.ts";
import { freePort } from "../../lib/local/net.ts";
import {
  type StartEmbeddedPostgresReturnType,
  startEmbeddedPostgres,
} from "../../lib/local/postgres/embedded.ts";
import { createLogger } from "../../lib/logger.ts";
import { rebroadcastRelayerTxs, type StoredTx } from "../../lib/relayer/nonce.ts";
import { sendRelayerTxs } from "../../lib/relayer/send.ts";

// The relayer's nonce across its signers: the saga's batches (worker) and deposit launches
// (API) on one chain and one database, at once; and the saga's recovery of a transaction
// stored but never broadcast.
let dir: string;
let anvil: StartAnvilReturnType;
let pg: StartEmbeddedPostgresReturnType;
let sqlWorker: postgres.Sql;
let sqlApi: postgres.Sql;
let client: PublicClient;
let ctx: SagaContext;
const relayer = devnetAccounts().relayer;
const sink = devnetAccounts().external[0]?.address as `0x${string}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "relayer-nonce-"));
  // Blocks every second, as on the devnet: batches share blocks, sends race real mining.
  anvil = await startAnvil({ port: await freePort(), blockTime: 1 });
  pg = await startEmbeddedPostgres({ dataDir: dir });
  sqlWorker = postgres(pg.url, { max: 4, onnotice: () => {} });
  sqlApi = postgres(pg.url, { max: 4, onnotice: () => {} });
  const chain: Chain = viemChain({ id: DEVNET_CHAIN_ID, name: "devnet", rpcUrls: [anvil.rpcUrl] });
  client = createPublicClient({ chain, transport: http(anvil.rpcUrl) }) as PublicClient;
  const log = createLogger("test", "silent");
  ctx = { sql: sqlWorker, log, client, relayer, chain } as unknown as SagaContext;
}, 120_000);

afterAll(async () => {
  await sqlWorker?.end({ timeout: 2 });
  await sqlApi?.end({ timeout: 2 });
  await pg?.stop();
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const mined = async (hash: Hex) =>
  client.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 30_000 });

it("five saga batches and five deposit launches at once: every nonce signed once, every transaction mined", async () => {
  const before = await client.getTransactionCount({ address: relayer.address });
  const stored: StoredTx[] = [];
  const sagas = Array.from({ length: 5 }, (_, i) =>
    sendRelayerTxs(
      ctx,
      [
        { to: sink, value: parseEther("0.001") + BigInt(i) },
        { to: sink, value: parseEther("0.002") + BigInt(i) },
      ],
      async (txs) => {
        stored.push(...txs);
      },
    ),
  );
  const deposits = Array.from({ length: 5 }, (_, i) =>
    sendRelayerTxs({ ...ctx, sql: sqlApi }, [{ to: sink, data: `0x0${i}` }], async (txs) => {
      stored.push(...txs);
    }),
  );
  await Promise.all([...sagas, ...deposits]);
  const receipts = await Promise.all(stored.map((t) => mined(t.hash)));
  expect(receipts.every((r) => r.status === "success")).toBe(true);
  const nonces = stored.map((t) => t.nonce).sort((a, b) => a - b);
  expect(nonces).toEqual(Array.from({ length: 15 }, (_, i) => before + i));
  expect(await client.getTransactionCount({ address: relayer.address })).toBe(before + 15);
  // A saga's two transactions were sent together: both in one block.
  const blocksOf = (i: number) => receipts.slice(2 * i, 2 * i + 2).map((r) => r.blockNumber);
  const paired = Array.from({ length: 5 }, (_, i) => new Set(blocksOf(i)).size === 1);
  expect(paired.filter(Boolean).length).toBeGreaterThanOrEqual(3);
}, 90_000);

it("a stored transaction never broadcast is re-sent on resume; one whose nonce went to another is signed anew once", async () => {
  const before = await client.getTransactionCount({ address: relayer.address });
  const sign = async (nonce: number, value: bigint): Promise<StoredTx> => {
    const raw = await relayer.signTransaction({
      type: "legacy",
      chainId: DEVNET_CHAIN_ID,
      nonce,
      to: sink,
      value,
      gas: 21_000n,
      gasPrice: await client.getGasPrice(),
    });
    return { hash: keccak256(raw), raw, nonce };
  };
  // The crash: signed and stored, the worker died before broadcasting.
  const lost = await sign(before, 111n);
  await rebroadcastRelayerTxs(ctx, [lost]);
  const resumed = await settleRelayerTx({
    ctx,
    stored: lost,
    needed: async () => ({ to: sink, value: 111n }),
    save: async () => {
      throw new Error("a re-broadcast transaction must not be signed again");
    },
  });
  expect(resumed?.transactionHash).toBe(lost.hash);

  // The other crash: stored, never broadcast, and another signer used its nonce meanwhile.
  const dropped = await sign(before + 1, 222n);
  const [other] = await sendRelayerTxs(ctx, [{ to: sink, value: 333n }], async () => {});
  expect(other?.nonce).toBe(before + 1);
  let saved: StoredTx | undefined;
  const again = await settleRelayerTx({
    ctx,
    stored: dropped,
    needed: async () => ({ to: sink, value: 222n }),
    save: async (tx) => {
      saved = tx;
    },
  });
  expect(again?.status).toBe("success");
  expect(saved?.nonce).toBe(before + 2);
  expect(again?.transactionHash).toBe(saved?.hash);
  expect(await client.getTransaction({ hash: dropped.hash }).catch(() => null)).toBeNull();
  expect(await client.getTransactionCount({ address: relayer.address })).toBe(before + 3);
}, 90_000);

it("a stored transaction that reverted because an earlier copy did its work settles as done, not failed", async () => {
  // A contract whose one call succeeds once and reverts after (as a Safe deployed twice at its
  // CREATE2 address does): runtime `if (sload(0)) revert; sstore(0, 1)`.
  const once = "0x00000000000000000000000000000000000000aa" as const;
  await client.request({
    method: "anvil_setCode" as "eth_call",
    params: [once, "0x60005415600b57600080fd5b600160005500"] as never,
  });
  const done = async () => (await client.getStorageAt({ address: once, slot: "0x0" })) !== "0x0";
  // The earlier copy, mined late (after an RPC pause or a restart): it did the work.
  const [early] = await sendRelayerTxs(ctx, [{ to: once, data: "0x" }], async () => {});
  expect((await mined((early as StoredTx).hash)).status).toBe("success");
  // The copy the saga stored: same work, so it reverts.
  const nonce = await client.getTransactionCount({ address: relayer.address });
  const raw = await relayer.signTransaction({
    type: "legacy",
    chainId: DEVNET_CHAIN_ID,
    nonce,
    to: once,
    data: "0x",
    gas: 100_000n,
    gasPrice: await client.getGasPrice(),
  });
  const stored: StoredTx = { hash: keccak256(raw), raw, nonce };
  await rebroadcastRelayerTxs(ctx, [stored]);
  expect((await mined(stored.hash)).status).toBe("reverted");

  const settled = await settleRelayerTx({
    ctx,
    stored,
    needed: async () => ((await done()) ? null : { to: once, data: "0x" }),
    save: async () => {
      throw new Error("work already on chain must not be signed again");
    },
  });
  expect(settled).toBeNull();
  expect(await client.getTransactionCount({ address: relayer.address })).toBe(nonce + 1);
}, 90_000);
