import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { type Address, getAddress, zeroAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { startSafeTxServiceStandIn } from "../../devnet/stand-ins/safe-tx-service/start.ts";
import { safeEvents } from "../../jobs/pollers/safe.ts";
import type { StartWorkerReturnType } from "../../jobs/worker.ts";
import { safeTxHash } from "../../services/safe-tx-service/protocol.ts";
import {
  killInsideCommit,
  pollersEnv,
  pollFailures,
  startPollersInProcess,
  until,
} from "./world.ts";

// The Safe poller against the Safe Transaction Service stand-in over HTTP (real Postgres,
// real pg-boss): a proposal and each confirmation once in the feed, grouped by the
// safeTxHash; failed polls retried without loss; the execution left to the chain's events; the
// service stopped mid-poll (restarted from its state on disk) and a worker SIGKILLed inside the
// poll's commit leave the feed equal to the service's history.

let db: TestDatabase;
let worker: StartWorkerReturnType | undefined;
let url: string;
let standIn: Awaited<ReturnType<typeof startSafeTxServiceStandIn>>;
let env: Record<string, string>;
const log = pino({ level: "silent" });
const dir = mkdtempSync(join(tmpdir(), "launchpad-safe-"));
const statePath = join(dir, "safe-tx-service", "state.json");
const safe = getAddress(privateKeyToAccount(generatePrivateKey()).address);
const owner1 = privateKeyToAccount(generatePrivateKey());
const owner2 = privateKeyToAccount(generatePrivateKey());

const events = () =>
  db.sql<{ event_type: string; source_event_id: string; correlation_id: string }[]>`
    select event_type, source_event_id, correlation_id from app.agent_events
    where agent_id = 'agent-t' and source = 'safe-poller' order by id`;

const stand = (path: string, body: unknown, method = "POST") =>
  fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
/** The feed the service's whole history must produce. */
async function expected() {
  const r = (await (await fetch(`${url}/_control/state`)).json()) as {
    results: Parameters<typeof safeEvents>[1];
  };
  return safeEvents("agent-t", r.results)
    .map((e) => `${e.eventType} ${e.sourceEventId}`)
    .sort();
}
const stored = async () =>
  (await events()).map((e) => `${e.event_type} ${e.source_event_id}`).sort();
const failures = () => pollFailures(db.sql, "safe", "agent-t");

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
  standIn = await startSafeTxServiceStandIn({ chainId: 56, log, statePath });
  url = standIn.url;
  await db.sql`insert into app.agents (agent_id, name, ticker, description, image_url, treasury_address)
    values ('agent-t', 'Agent T', 'TRS', 'treasury agent', 'https://example.com/t.png', ${safe.toLowerCase()})`;
  env = pollersEnv({
    dataDir: dir,
    databaseUrl: db.url,
    scale: "0.05",
    extra: { SAFE_TX_SERVICE_URL: url },
  });
  worker = await startPollersInProcess(env);
});
afterAll(async () => {
  await worker?.stop();
  await standIn?.stop();
  await db?.stop();
});

describe("Safe poller", () => {
  it("reports a proposal and each confirmation once, grouped by the safeTxHash, across failures", async () => {
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
    await until("a failed poll", async () => (await failures()) > 0);
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
    expect(await failures()).toBe(0);
  });

  it("refuses a proposal whose hash does not match or whose address is not checksummed", async () => {
    const bad = await fetch(`${url}/api/v2/safes/${safe.toLowerCase()}/multisig-transactions/`, {
      method: "POST",
      body: "{}",
    });
    expect(bad.status).toBe(422);
  });

  it("a service stopped mid-poll and a worker killed inside the commit lose and double nothing", async () => {
    const hash = await propose(1);
    // Mid-poll: list requests hang; the service then goes away with them open, and comes
    // back from its state on disk (nothing of it kept in this process).
    await stand("/_control/fail", { mode: "hang" }, "PUT");
    const before = await failures();
    await until("a poll cut by the timeout", async () => (await failures()) > before);
    await standIn.stop();
    await until("a poll refused", async () => (await failures()) > before + 1);
    standIn = await startSafeTxServiceStandIn({ chainId: 56, log, statePath, port: standIn.port });
    const c = await stand(`/api/v1/multisig-transactions/${hash}/confirmations/`, {
      signature: await owner2.sign({ hash }),
    });
    expect(c.status).toBe(201);
    const want = await expected();
    expect(want).toContain(`safe.tx.proposed proposed:${hash}`);
    await until("the feed to catch up", async () => (await stored()).length >= want.length);
    expect(await stored()).toEqual(want);

    // A worker SIGKILLed inside the poll's commit: nothing of that poll stays; its successor
    // brings the feed to the history, once each.
    await worker?.stop();
    worker = undefined;
    const hash2 = await propose(2);
    await killInsideCommit({
      env,
      poller: "safe",
      fresh: [
        `safe.tx.proposed proposed:${hash2}`,
        `safe.tx.confirmed confirmed:${hash2}:${owner1.address.toLowerCase()}`,
      ],
      stored,
      history: expected,
    });
  }, 180_000);
});
