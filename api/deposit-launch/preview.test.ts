import {
  type Account,
  type Address,
  createPublicClient,
  http,
  parseEther,
  parseEventLogs,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { startTestChain, type TestChain } from "../../contracts/test/helpers.ts";
import { type TestApp, type TestBody, testApp } from "../testing/app.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";

// The deposit preview over a real anvil: what the caller's own accounts cannot pay is the
// caller's problem (a step error in the 200 answer), never the chain's 503.

let chain: TestChain;
let db: TestDatabase;
let t: TestApp;
let launchId: string;
let funded: Account;

beforeAll(async () => {
  [chain, db] = await Promise.all([startTestChain(), startTestDatabase()]);
  const factory = chain.record.contracts.launchFactory as Address;
  funded = await chain.fundedAccount("100");
  t = await testApp(db, {}, "test", {
    sessions: {
      deposit: {
        sql: db.sql,
        client: chain.publicClient,
        relayer: privateKeyToAccount(`0x${"11".repeat(32)}`),
        factory,
        chainId: chain.record.chainId,
        trustedImageOrigins: [],
        budget: { perClientPerHour: 10, perDayWei: parseEther("1") },
      },
    },
  });
  const block = await chain.publicClient.getBlock();
  const receipt = await chain.mined(
    await chain.wallet(funded).writeContract({
      address: factory,
      abi: launchFactoryAbi,
      functionName: "createLaunch",
      args: [
        0,
        "Preview",
        "PRV",
        '{"description":"d"}',
        block.timestamp + 3600n,
        200,
        300,
        funded.address,
      ],
    }),
  );
  const [ev] = parseEventLogs({
    abi: launchFactoryAbi,
    logs: receipt.logs,
    eventName: "LaunchCreated",
  });
  launchId = String(ev?.args.launchId);
}, 180_000);

afterAll(async () => {
  await Promise.all([chain?.stop(), db?.stop()]);
});

async function preview(body: unknown) {
  const res = await t.app.request(`/v2/launches/${launchId}/preview`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as TestBody;
  expect(t.check("/v2/launches/{id}/preview", res.status, json, "post")).toEqual([]);
  return { status: res.status, body: json };
}

describe("POST /v2/launches/{id}/preview", () => {
  it("a depositor whose balance is below the amount gets a step error, like BelowMinDeposit", async () => {
    const poor = await chain.fundedAccount("0.01");
    const r = await preview({
      deposits: [
        { account: poor.address, amountWei: parseEther("1").toString() },
        { account: funded.address, amountWei: "1" },
        { account: funded.address, amountWei: parseEther("0.5").toString() },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.ok).toBe(false);
    expect(
      r.body.data.steps.map((s: { ok: boolean; error: string | null }) => [s.ok, s.error]),
    ).toEqual([
      [false, "InsufficientBalance"],
      [false, "BelowMinDeposit"],
      [true, null],
    ]);
    // Only the deposit that would succeed counts.
    expect(r.body.data.totalDepositedWei).toBe(parseEther("0.5").toString());
  });

  it("an account short only within the bundle fails from the deposit it cannot pay", async () => {
    const some = await chain.fundedAccount("1");
    const r = await preview({
      deposits: [
        { account: some.address, amountWei: parseEther("0.6").toString() },
        { account: some.address, amountWei: parseEther("0.6").toString() },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.steps.map((s: { error: string | null }) => s.error)).toEqual([
      null,
      "InsufficientBalance",
    ]);
  });

  it("a chain that cannot be reached is still 503 with Retry-After", async () => {
    const down = await testApp(db, {}, "test", {
      sessions: {
        deposit: {
          sql: db.sql,
          client: createPublicClient({
            chain: chain.chain,
            transport: http("http://127.0.0.1:1"),
          }),
          relayer: privateKeyToAccount(`0x${"11".repeat(32)}`),
          factory: chain.record.contracts.launchFactory as Address,
          chainId: chain.record.chainId,
          trustedImageOrigins: [],
          budget: { perClientPerHour: 10, perDayWei: parseEther("1") },
        },
      },
    });
    const res = await down.app.request(`/v2/launches/${launchId}/preview`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ deposits: [{ account: funded.address, amountWei: "1" }] }),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBeTruthy();
  });
});
