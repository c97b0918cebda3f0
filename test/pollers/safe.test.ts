import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { pino } from "pino";
import { type Address, getAddress, zeroAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { type StartWorkerReturnType, startWorker } from "../../jobs/worker.ts";
import { loadConfig } from "../../lib/config.ts";
import { safeTxHash } from "../../services/safe-tx-service/protocol.ts";
import { createSafeTxServiceStandIn } from "../../services/safe-tx-service/stand-in/server.ts";
import { until } from "./world.ts";

// The Safe poller against the Safe Transaction Service stand-in over HTTP (real Postgres,
// real pg-boss): a proposal and each confirmation once in the feed, grouped by the
// safeTxHash; failed polls retried without loss; the execution left to the chain's events.

let db: TestDatabase;
let worker: StartWorkerReturnType;
let url: string;
let server: ReturnType<typeof serve>;
const safe = getAddress(privateKeyToAccount(generatePrivateKey()).address);
const owner1 = privateKeyToAccount(generatePrivateKey());
const owner2 = privateKeyToAccount(generatePrivateKey());

const events = () =>
  db.sql<{ event_type: string; source_event_id: string; correlation_id: string }[]>`
    select event_type, source_event_id, correlation_id from app.agent_events
    where agent_id = 'agent-t' and source = 'safe-poller' order by id`;

async function propose(nonce: number) {
  const tx = {
    to: owner2.address as Address,
    value: "1000",
    data: "0x" as const,
    operation: 0 as const,
    safeTxGas: "0",
    baseGas: "0",
    gasPrice: "0",
    gasToken: zeroAddress,
    refundReceiver: zeroAddress,
    nonce: String(nonce),
  };
  const hash = safeTxHash(56, safe, tx);
  const r = await fetch(`${url}/api/v2/safes/${safe}/multisig-transactions/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      ...tx,
      contractTransactionHash: hash,
      sender: owner1.address,
      signature: await owner1.sign({ hash }),
    }),
  });
  expect(r.status).toBe(201);
  return hash;
}

beforeAll(async () => {
  db = await startTestDatabase();
  await new Promise<void>((r) => {
    server = serve(
      {
        fetch: createSafeTxServiceStandIn({ chainId: 56, log: pino({ level: "silent" }) }).fetch,
        hostname: "127.0.0.1",
        port: 0,
      },
      (i: AddressInfo) => {
        url = `http://127.0.0.1:${i.port}`;
        r();
      },
    );
  });
  await db.sql`insert into app.agents (agent_id, name, ticker, description, image_url, treasury_address)
    values ('agent-t', 'Agent T', 'TRS', 'treasury agent', 'https://example.com/t.png', ${safe.toLowerCase()})`;
  const dir = mkdtempSync(join(tmpdir(), "launchpad-safe-"));
  const config = loadConfig(
    {
      LAUNCHPAD_ENV: "test",
      LAUNCHPAD_DATA_DIR: dir,
      BSC_RPC_URL: "http://127.0.0.1:9",
      HYPERLIQUID_API_URL: "http://127.0.0.1:9",
      SAFE_TX_SERVICE_URL: url,
      UPSTREAM_TIMEOUT_MS: "1000",
      POLL_TIME_SCALE: "0.05",
    },
    dir,
  );
  worker = await startWorker({
    databaseUrl: db.url,
    log: pino({ level: "silent" }),
    config,
    jobs: ["pollers"],
  });
});
afterAll(async () => {
  await worker?.stop();
  server?.close();
  await db?.stop();
});

describe("Safe poller", () => {
  it("reports a proposal and each confirmation once, grouped by the safeTxHash, across failures", async () => {
    const stand = (path: string, body: unknown, method = "POST") =>
      fetch(`${url}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const hash = await propose(0);
    await until(
      "the proposal and its proposer's confirmation",
      async () => (await events()).length === 2,
    );
    // A second owner confirms; then the service fails the next three polls.
    const c = await stand(`/api/v1/multisig-transactions/${hash}/confirmations/`, {
      signature: await owner2.sign({ hash }),
    });
    expect(c.status).toBe(201);
    await stand("/_control/fail", { count: 3 }, "PUT");
    await until("a failed poll", async () => {
      const [f] = await db.sql<{ failures: number }[]>`
        select failures from app.poller_state where poller = 'safe' and agent_id = 'agent-t'`;
      return (f?.failures ?? 0) > 0;
    });
    await until("the second confirmation", async () => (await events()).length === 3, 30_000);
    const e = await events();
    expect(e.map((x) => x.event_type)).toEqual([
      "safe.tx.proposed",
      "safe.tx.confirmed",
      "safe.tx.confirmed",
    ]);
    expect(new Set(e.map((x) => x.correlation_id))).toEqual(new Set([hash]));
    expect(e.map((x) => x.source_event_id).sort()).toEqual(
      [
        `proposed:${hash}`,
        `confirmed:${hash}:${owner1.address.toLowerCase()}`,
        `confirmed:${hash}:${owner2.address.toLowerCase()}`,
      ].sort(),
    );
    // Executed: the chain reports it (evm-indexer:bsc); the poller adds nothing.
    await stand("/_control/executed", {
      safeTxHash: hash,
      transactionHash: `0x${"ab".repeat(32)}`,
    });
    await new Promise((r) => setTimeout(r, 3_500));
    expect((await events()).length).toBe(3);
    const [s] = await db.sql<{ failures: number }[]>`
      select failures from app.poller_state where poller = 'safe' and agent_id = 'agent-t'`;
    expect(s?.failures).toBe(0);
  });

  it("refuses a proposal whose hash does not match or whose address is not checksummed", async () => {
    const bad = await fetch(`${url}/api/v2/safes/${safe.toLowerCase()}/multisig-transactions/`, {
      method: "POST",
      body: "{}",
    });
    expect(bad.status).toBe(422);
  });
});
