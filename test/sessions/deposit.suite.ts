import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  hashMessage,
  hexToBigInt,
  http,
  keccak256,
  parseEther,
  serializeErc6492Signature,
  zeroAddress,
} from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { launchVaultAbi } from "../../abis/LaunchVault.ts";
import { safeL2Abi } from "../../abis/SafeL2.ts";
import { safeProxyFactoryAbi } from "../../abis/SafeProxyFactory.ts";
import { DEVNET_MNEMONIC } from "../../devnet/anvil.ts";
import { runCli, type Stack, waitFor } from "../helpers/cli.ts";
import { chainClient, readRecord, stackSql } from "../helpers/launch.ts";
import { sharedStack } from "../helpers/shared-stack.ts";
import { type Body, client, openApiChecker, signIn } from "./helpers.ts";

// what: Wallet sessions (SIWE, EIP-1271, EIP-6492) and deposit launches on a real stack: refusals that send nothing, the relayer, previews, on-chain deposits, another session, a crash before sending, a wallet that pays for its own launch, the per-wallet limit
// Accounts 5 to 9 of the devnet mnemonic are browser-less users (no other shared suite launches
// or deposits with them).
const users = [5, 6, 7, 8, 9].map((addressIndex) =>
  mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex }),
);
const [alice, bob] = users as [(typeof users)[0], (typeof users)[0]];

let stack: Stack;
let env: Record<string, string>;
let sql: ReturnType<typeof stackSql>;
let call: ReturnType<typeof client>;
let check: Awaited<ReturnType<typeof openApiChecker>>;
let chain: ReturnType<typeof chainClient>;
let record: ReturnType<typeof readRecord>;
let image: string;
let aliceCookie: string;
let created: Body;

beforeAll(async () => {
  ({ stack, env } = await sharedStack());
  sql = stackSql(env.LAUNCHPAD_DATA_DIR as string);
  call = client(stack.apiUrl);
  check = await openApiChecker(stack.apiUrl);
  chain = chainClient(env);
  record = readRecord(env.LAUNCHPAD_DATA_DIR as string);
  image = JSON.parse((await runCli(["devnet", "info", "--json"], env)).stdout).sampleImageUrl;
}, 240_000);

afterAll(async () => {
  await sql?.end({ timeout: 2 });
});

const factory = () => record.contracts.launchFactory as Address;
const launchCount = () =>
  chain.readContract({ address: factory(), abi: launchFactoryAbi, functionName: "launchCount" });
const requests = async () =>
  Number((await sql`select count(*)::int as n from app.deposit_launch_requests`)[0]?.n);

async function body(over: Record<string, unknown> = {}) {
  const now = Number((await chain.getBlock()).timestamp);
  return {
    tier: "0",
    name: "Deposit Test",
    symbol: "DPT",
    description: "A deposit launch created by a signed-in wallet",
    image,
    closeTimestamp: now + 3600,
    buyTaxBps: 200,
    sellTaxBps: 300,
    socials: { x: "https://x.com/deposit_test", telegram: "https://t.me/deposit_test" },
    ...over,
  };
}

describe("a browser-less client", () => {
  it("signs in with a test account's key", async () => {
    const r = await signIn(stack.apiUrl, alice, { web: env.WEB_URL });
    expect(r.status).toBe(200);
    expect(check("/auth/verify", "post", 200, r.body)).toEqual([]);
    aliceCookie = r.cookie;
    const me = await call("GET", "/auth/session", { cookie: aliceCookie });
    expect(me.body.data.address).toBe(alice.address.toLowerCase());
  });

  it("cannot create a launch without a session, cross-site, or with a bad body; nothing is sent", async () => {
    const [count, before] = [await launchCount(), await requests()];
    const none = await call("POST", "/v2/launches", { body: await body() });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe("not_authenticated");
    expect(check("/v2/launches", "post", 401, none.body)).toEqual([]);
    const cross = await call("POST", "/v2/launches", {
      body: await body(),
      cookie: aliceCookie,
      headers: { origin: "https://evil.example" },
    });
    expect(cross.status).toBe(403);
    expect(cross.body.error).toBe("not_authorized");
    const now = Number((await chain.getBlock()).timestamp);
    for (const [over, path] of [
      [{ tier: "9" }, "tier"],
      [{ closeTimestamp: now + 10 }, "closeTimestamp"],
      [{ closeTimestamp: now + 31 * 86400 }, "closeTimestamp"],
      [{ buyTaxBps: 1001 }, "buyTaxBps"],
      [{ symbol: "NO SPACES" }, "symbol"],
      [{ socials: { x: "https://evil.example/x" } }, "socials.x"],
      [{ image: "http://127.0.0.1:1/nope.png" }, "image"],
    ] as const) {
      const r = await call("POST", "/v2/launches", { body: await body(over), cookie: aliceCookie });
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(r.body.error).toBe("validation_failed");
      expect(r.body.details.map((d: { path: string }) => d.path)).toContain(path);
      expect(check("/v2/launches", "post", 400, r.body)).toEqual([]);
    }
    expect(await launchCount()).toBe(count);
    expect(await requests()).toBe(before);
  });

  it("creates a deposit launch: the relayer sends it, the wallet is the creator, a retry replays", async () => {
    const aliceBalance = await chain.getBalance({ address: alice.address });
    const count = await launchCount();
    const req = await body();
    const r = await call("POST", "/v2/launches", {
      body: req,
      cookie: aliceCookie,
      headers: { "idempotency-key": "first", origin: env.WEB_URL as string },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(check("/v2/launches", "post", 201, r.body)).toEqual([]);
    created = r.body.data;
    expect(created).toMatchObject({
      id: String(count + 1n),
      creator: alice.address.toLowerCase(),
      tier: "0",
      name: "Deposit Test",
      symbol: "DPT",
      status: "open",
      router: record.contracts.uniswapV2Router,
      closeTimestamp: new Date(req.closeTimestamp * 1000).toISOString(),
    });
    const again = await call("POST", "/v2/launches", {
      body: req,
      cookie: aliceCookie,
      headers: { "idempotency-key": "first" },
    });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(r.body);
    expect(await launchCount()).toBe(count + 1n);
    // The relayer paid; the wallet spent nothing.
    expect(await chain.getBalance({ address: alice.address })).toBe(aliceBalance);
    const vaultCreator = await chain.readContract({
      address: created.vault,
      abi: launchVaultAbi,
      functionName: "creator",
    });
    expect(vaultCreator.toLowerCase()).toBe(alice.address.toLowerCase());
    // The indexer, not the API, writes the launch row.
    const indexed = await waitFor("the launch indexed", async () => {
      const g = await call("GET", `/v2/launches/${created.id}`);
      return g.status === 200 ? g.body.data : undefined;
    });
    expect(indexed).toMatchObject({
      vault: created.vault,
      treasury: created.treasury,
      predictedToken: created.predictedToken,
      creator: created.creator,
      status: "open",
    });
  });

  it("previews deposits and the launch without sending anything", async () => {
    const watched = [...users.map((u) => u.address), created.vault as Address];
    const snapshot = () =>
      Promise.all(
        watched.flatMap((address) => [
          chain.getBalance({ address }),
          chain.getTransactionCount({ address }),
        ]),
      );
    const before = await snapshot();
    const deposits = users.map((u, i) => ({
      account: u.address,
      amountWei: parseEther(String(0.5 + i * 0.25)).toString(),
    }));
    const r = await call("POST", `/v2/launches/${created.id}/preview`, {
      body: { deposits, action: "claim" },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(check("/v2/launches/{id}/preview", "post", 200, r.body)).toEqual([]);
    const p = r.body.data;
    expect(p.ok).toBe(true);
    expect(p.steps.map((s: Body) => s.call)).toEqual([
      ...users.map(() => "deposit"),
      "close",
      "executeLaunch",
      ...users.map(() => "claim"),
    ]);
    for (const s of p.steps) expect(BigInt(s.gas)).toBeGreaterThan(21_000n);
    // Tokens are pro rata: 800M (tier 0 pairs 20% of the supply) split by principal.
    const total = deposits.reduce((s, d) => s + BigInt(d.amountWei), 0n);
    expect(p.totalDepositedWei).toBe(total.toString());
    const [first] = p.tokens;
    expect(BigInt(first.tokens)).toBeGreaterThan(0n);
    for (const t of p.tokens) {
      expect(BigInt(t.tokens) * total).toBeLessThanOrEqual(
        (BigInt(first.tokens) * BigInt(t.principalWei) * total) / BigInt(first.principalWei) +
          total,
      );
    }
    // Over the wallet limit: the step names the vault's error.
    const over = await call("POST", `/v2/launches/${created.id}/preview`, {
      body: { deposits: [{ account: bob.address, amountWei: parseEther("6").toString() }] },
    });
    expect(over.body.data.ok).toBe(false);
    expect(over.body.data.steps[0].error).toBe("AboveWalletLimit");
    expect(await snapshot()).toEqual(before);
    const missing = await call("POST", "/v2/launches/999999/preview", { body: { deposits } });
    expect(missing.status).toBe(404);
  });

  it("deposits on-chain with accounts 5 to 9 and sees them on /v2/users/me/deposits", async () => {
    const amounts = users.map((_, i) => parseEther(String(0.5 + i * 0.25)));
    const preview = await call("POST", `/v2/launches/${created.id}/preview`, {
      body: {
        deposits: users.map((u, i) => ({ account: u.address, amountWei: String(amounts[i]) })),
      },
    });
    for (const [i, u] of users.entries()) {
      const wallet = createWalletClient({
        account: u,
        transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`),
      });
      const hash = await wallet.sendTransaction({
        chain: null,
        to: created.vault,
        value: amounts[i],
        data: encodeFunctionData({ abi: launchVaultAbi, functionName: "deposit" }),
      });
      const receipt = await chain.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      // The preview's gas is what the deposit used.
      const predicted = BigInt(preview.body.data.steps[i].gas);
      expect(receipt.gasUsed * 100n).toBeGreaterThan(predicted * 95n);
      expect(receipt.gasUsed * 100n).toBeLessThan(predicted * 105n);
    }
    const mine = await waitFor("alice's deposit indexed", async () => {
      const r = await call("GET", "/v2/users/me/deposits", { cookie: aliceCookie });
      return r.body.data?.items?.length ? r : undefined;
    });
    expect(check("/v2/users/me/deposits", "get", 200, mine.body)).toEqual([]);
    expect(mine.body.data.items).toEqual([
      expect.objectContaining({
        launchId: created.id,
        vault: created.vault,
        status: "open",
        principal: String(amounts[0]),
        claimed: "0",
        claimable: "0",
        refundable: "0",
      }),
    ]);
    const theirs = await call("GET", `/v2/users/${alice.address}/launches`);
    const same = theirs.body.data.items.find((l: Body) => l.id === created.id);
    expect(same.principal).toBe(mine.body.data.items[0].principal);
    expect(same.created).toBe(true);
  });

  it("another session cannot act as it", async () => {
    const b = await signIn(stack.apiUrl, bob, { web: env.WEB_URL });
    expect(b.status).toBe(200);
    const theirs = await waitFor("bob's deposit indexed", async () => {
      const r = await call("GET", "/v2/users/me/deposits", { cookie: b.cookie });
      return r.body.data?.items?.length ? r : undefined;
    });
    expect(theirs.body.data.items.map((x: Body) => x.principal)).toEqual([
      String(parseEther("0.75")),
    ]);
    // Bob's creation is Bob's: the creator is always the session's wallet.
    const r = await call("POST", "/v2/launches", {
      body: await body({ name: "Bob Launch", symbol: "BOB" }),
      cookie: b.cookie,
    });
    expect(r.status).toBe(201);
    expect(r.body.data.creator).toBe(bob.address.toLowerCase());
    // Bob's logout ends Bob's session only.
    expect((await call("POST", "/auth/logout", { cookie: b.cookie })).status).toBe(200);
    expect((await call("GET", "/auth/session", { cookie: b.cookie })).status).toBe(401);
    expect((await call("GET", "/auth/session", { cookie: aliceCookie })).status).toBe(200);
    expect((await call("GET", "/v2/users/me/deposits")).status).toBe(401);
  });

  it("resumes after a crash between storing the relayer's transaction and sending it", async () => {
    // The state a crash leaves: the signed createLaunch stored, never broadcast.
    const relayer = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 1 });
    const req = await body({ name: "Crash Test", symbol: "CRASH" });
    const data = encodeFunctionData({
      abi: launchFactoryAbi,
      functionName: "createLaunch",
      args: [
        0,
        req.name,
        req.symbol,
        JSON.stringify({ description: req.description, image: req.image, socials: req.socials }),
        BigInt(req.closeTimestamp),
        req.buyTaxBps,
        req.sellTaxBps,
        alice.address.toLowerCase() as Address,
      ],
    });
    const nonce = await chain.getTransactionCount({
      address: relayer.address,
      blockTag: "pending",
    });
    const raw = await relayer.signTransaction({
      type: "legacy",
      chainId: 56,
      nonce,
      to: factory(),
      data,
      gas: 8_000_000n,
      gasPrice: await chain.getGasPrice(),
    });
    await sql`insert into app.deposit_launch_requests (creator, idem_key, request, status, tx)
      values (${alice.address.toLowerCase()}, 'crashed', ${sql.json(req)}, 'pending',
        ${sql.json({ hash: keccak256(raw), raw, nonce })})`;
    const count = await launchCount();
    const r = await call("POST", "/v2/launches", {
      body: req,
      cookie: aliceCookie,
      headers: { "idempotency-key": "crashed" },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data).toMatchObject({ name: "Crash Test", txHash: keccak256(raw) });
    const again = await call("POST", "/v2/launches", {
      body: req,
      cookie: aliceCookie,
      headers: { "idempotency-key": "crashed" },
    });
    expect(again.body).toEqual(r.body);
    expect(await launchCount()).toBe(count + 1n);
    // The same key with another body is refused, not replayed.
    const other = await call("POST", "/v2/launches", {
      body: { ...req, name: "Another" },
      cookie: aliceCookie,
      headers: { "idempotency-key": "crashed" },
    });
    expect(other.status).toBe(400);
  });

  it("a wallet that pays for itself: the API answers the transaction, the wallet sends it, the launch is indexed like any other", async () => {
    const self = privateKeyToAccount(generatePrivateKey());
    await chain.request({
      method: "anvil_setBalance" as never,
      params: [self.address, `0x${parseEther("1").toString(16)}`] as never,
    });
    const relayer = record.accounts.relayer;
    const relayerNonce = await chain.getTransactionCount({ address: relayer, blockTag: "pending" });
    const s = await signIn(stack.apiUrl, self, { web: env.WEB_URL });
    const r = await call("POST", "/v2/launches/transaction", {
      body: await body({ name: "Self Paid", symbol: "SELF" }),
      cookie: s.cookie,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(check("/v2/launches/transaction", "post", 200, r.body)).toEqual([]);
    const { transaction: tx, launchCreatedTopic } = r.body.data;
    const wallet = createWalletClient({
      account: self,
      transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`),
    });
    const hash = await wallet.sendTransaction({
      chain: null,
      to: tx.to,
      data: tx.data,
      gas: BigInt(tx.gas),
    });
    const receipt = await chain.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    const log = receipt.logs.find((l) => l.topics[0] === launchCreatedTopic);
    const id = hexToBigInt(log?.topics[1] as Hex).toString();
    const indexed = await waitFor("the self-paid launch indexed", async () => {
      const g = await call("GET", `/v2/launches/${id}`);
      return g.status === 200 ? g.body.data : undefined;
    });
    expect(indexed).toMatchObject({
      id,
      name: "Self Paid",
      creator: self.address.toLowerCase(),
      status: "open",
    });
    const mine = await call("GET", `/v2/users/${self.address}/launches`);
    expect(mine.body.data.items.map((l: Body) => [l.id, l.created])).toEqual([[id, true]]);
    // The relayer sent nothing for it.
    expect(await chain.getTransactionCount({ address: relayer, blockTag: "pending" })).toBe(
      relayerNonce,
    );
  });

  it("limits a wallet to 5 launches an hour", async () => {
    // Alice made 2 launches this hour; 3 more (as if made a minute ago) fill her budget.
    for (let i = 0; i < 3; i++) {
      await sql`insert into app.deposit_launch_requests (creator, request, status, created_at)
        values (${alice.address.toLowerCase()}, '{}', 'created', now() - interval '1 minute')`;
    }
    const before = await launchCount();
    const r = await call("POST", "/v2/launches", { body: await body(), cookie: aliceCookie });
    expect(r.status).toBe(429);
    expect(r.body.error).toBe("rate_limited");
    expect(Number(r.res.headers.get("retry-after"))).toBeGreaterThan(3000);
    expect(await launchCount()).toBe(before);
  });
});

describe("contract wallets", () => {
  it("signs in as the launch's treasury Safe (EIP-1271) with its owner's key", async () => {
    const safe = created.treasury as Address;
    const r = await signIn(stack.apiUrl, alice, {
      web: env.WEB_URL,
      address: safe,
      sign: (message) =>
        alice.signTypedData({
          domain: { chainId: 56, verifyingContract: safe },
          types: { SafeMessage: [{ name: "message", type: "bytes" }] },
          primaryType: "SafeMessage",
          message: { message: hashMessage(message) },
        }),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.address).toBe(safe.toLowerCase());
    // A non-owner cannot sign for it.
    const no = await signIn(stack.apiUrl, bob, {
      web: env.WEB_URL,
      address: safe,
      sign: (message) =>
        bob.signTypedData({
          domain: { chainId: 56, verifyingContract: safe },
          types: { SafeMessage: [{ name: "message", type: "bytes" }] },
          primaryType: "SafeMessage",
          message: { message: hashMessage(message) },
        }),
    });
    expect(no.status).toBe(401);
  });

  it("signs in as a Safe not deployed yet (EIP-6492), deploying nothing", async () => {
    const owner = users[2] as (typeof users)[0];
    const c = record.contracts as {
      safeFallbackHandler: Address;
      safeL2Singleton: Address;
      safeProxyFactory: Address;
    };
    const setup = encodeFunctionData({
      abi: safeL2Abi,
      functionName: "setup",
      args: [
        [owner.address],
        1n,
        zeroAddress,
        "0x",
        c.safeFallbackHandler,
        zeroAddress,
        0n,
        zeroAddress,
      ],
    });
    const factoryData = encodeFunctionData({
      abi: safeProxyFactoryAbi,
      functionName: "createProxyWithNonce",
      args: [c.safeL2Singleton, setup, 6492n],
    });
    const { result: safe } = await chain.simulateContract({
      address: c.safeProxyFactory,
      abi: safeProxyFactoryAbi,
      functionName: "createProxyWithNonce",
      args: [c.safeL2Singleton, setup, 6492n],
    });
    const r = await signIn(stack.apiUrl, owner, {
      web: env.WEB_URL,
      address: safe,
      sign: async (message) =>
        serializeErc6492Signature({
          address: c.safeProxyFactory,
          data: factoryData,
          signature: await owner.signTypedData({
            domain: { chainId: 56, verifyingContract: safe },
            types: { SafeMessage: [{ name: "message", type: "bytes" }] },
            primaryType: "SafeMessage",
            message: { message: hashMessage(message) },
          }),
        }),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.address).toBe(safe.toLowerCase());
    expect(await chain.getCode({ address: safe })).toBeUndefined();
  });
});
