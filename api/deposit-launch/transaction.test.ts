import { type Address, type Hex, hexToBigInt, type LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { launchVaultAbi } from "../../abis/LaunchVault.ts";
import { gasCost } from "../../contracts/test/helpers.ts";
import { samplePng } from "../../devnet/stand-ins/four-meme/sample-image.ts";
import { serveWorld, type WorldServer } from "../../test/helpers/world/serve.ts";
import { type TestApp, testApp } from "../testing/app.ts";
import {
  callAs,
  type DepositWorld,
  siweCookie,
  startDepositWorld,
} from "../testing/deposit-world.ts";

// what: A wallet that pays for its own deposit launch, over a real anvil and Postgres: the API answers the unsigned createLaunch, the wallet sends and pays for it, the relayer (its budget spent) and the database are untouched; refusals change nothing

let w: DepositWorld;
/** The launch image, at a public name of the world (npm test): no trusted origin. */
let images: WorldServer;
let t: TestApp;
let relayer: LocalAccount;
const IP = "203.0.113.50";

beforeAll(async () => {
  images = await serveWorld("images.example.net", (_req, res) => {
    res.writeHead(200, { "content-type": "image/png" }).end(samplePng());
  });
  w = await startDepositWorld(`${images.origin}/launch.png`);
  relayer = (await w.chain.fundedAccount("10")) as LocalAccount;
  // The relayer pays for nothing here: every launch it would pay for is over the day's budget.
  const budget = { perClientPerHour: 10, perDayWei: 0n };
  t = await testApp(w.db, {}, "test", { sessions: { deposit: w.deposit({ relayer, budget }) } });
}, 180_000);

afterAll(async () => {
  await w?.stop();
  await images?.close();
});

const snapshot = async () => {
  const c = w.chain.publicClient;
  const count = (table: string) =>
    w.db.sql.unsafe(`select count(*)::int as n from app.${table}`).then((r) => r[0]?.n);
  return Promise.all([
    c.getTransactionCount({ address: relayer.address, blockTag: "pending" }),
    c.getBalance({ address: relayer.address }),
    count("deposit_launch_requests"),
    count("relayer_spend"),
  ]);
};

async function transactionFor(cookie: string | undefined, body: unknown) {
  const r = await callAs(t.app, IP, "POST", "/v2/launches/transaction", { cookie, body });
  expect(t.check("/v2/launches/transaction", r.status, r.body, "post")).toEqual([]);
  return r;
}

describe("POST /v2/launches/transaction", () => {
  it("answers the createLaunch a wallet sends itself: its launch, its gas, nothing of the relayer's", async () => {
    const wallet = (await w.chain.fundedAccount("1")) as LocalAccount;
    const cookie = await siweCookie(t.app, wallet, IP);
    const before = await snapshot();
    const body = await w.body({ name: "Self Paid", symbol: "SELF" });

    const paid = await callAs(t.app, IP, "POST", "/v2/launches", { cookie, body });
    expect(paid.status).toBe(429);
    expect(paid.body.message).toContain("POST /v2/launches/transaction");

    const r = await transactionFor(cookie, body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const tx = r.body.data.transaction;
    const factory = (w.chain.record.contracts.launchFactory as Address).toLowerCase();
    expect(tx).toMatchObject({
      from: wallet.address.toLowerCase(),
      to: factory,
      value: "0",
      chainId: w.chain.record.chainId,
    });
    const balance = await w.chain.publicClient.getBalance({ address: wallet.address });
    const receipt = await w.chain.mined(
      await w.chain.wallet(wallet).sendTransaction({
        to: tx.to,
        data: tx.data,
        value: BigInt(tx.value),
        gas: BigInt(tx.gas),
      }),
    );
    expect(receipt.gasUsed).toBeLessThan(BigInt(tx.gas));
    // From the receipt to the launch: the factory's log whose topics[0] the answer names.
    const log = receipt.logs.find(
      (l) => l.address === factory && l.topics[0] === r.body.data.launchCreatedTopic,
    );
    const launchId = hexToBigInt(log?.topics[1] as Hex);
    const vault = await w.chain.publicClient.readContract({
      address: factory as Address,
      abi: launchFactoryAbi,
      functionName: "vaults",
      args: [launchId],
    });
    const creator = await w.chain.publicClient.readContract({
      address: vault,
      abi: launchVaultAbi,
      functionName: "creator",
    });
    expect(creator.toLowerCase()).toBe(wallet.address.toLowerCase());
    // The wallet paid the gas; the relayer sent nothing and the API stored nothing.
    expect(await w.chain.publicClient.getBalance({ address: wallet.address })).toBe(
      balance - gasCost(receipt),
    );
    expect(await snapshot()).toEqual(before);
  });

  it("refuses without a session or with a bad body, and changes nothing", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const cookie = await siweCookie(t.app, wallet, IP);
    const before = await snapshot();
    const none = await transactionFor(undefined, await w.body());
    expect([none.status, none.body.error]).toEqual([401, "not_authenticated"]);
    const now = Number((await w.chain.publicClient.getBlock()).timestamp);
    for (const [over, path] of [
      [{ closeTimestamp: now + 10 }, "closeTimestamp"],
      [{ tier: "9" }, "tier"],
      [{ image: "http://127.0.0.1:1/none.png" }, "image"],
    ] as const) {
      const r = await transactionFor(cookie, await w.body(over));
      expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([400, "validation_failed"]);
      expect(r.body.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    expect(await snapshot()).toEqual(before);
  });
});
