import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Address, getAbiItem } from "viem";
import { afterAll, expect, it } from "vitest";
import { identityRegistryDevnetAbi } from "../../abis/IdentityRegistryDevnet.ts";
import { safeProxyFactoryAbi } from "../../abis/SafeProxyFactory.ts";
import { serviceRegistryAbi } from "../../abis/ServiceRegistry.ts";
import { tokenManager2Abi } from "../../abis/TokenManager2.ts";
import { FOURMEME_KILL_POINTS } from "../../jobs/launch/fourmeme.ts";
import { PREPARE_KILL_POINTS } from "../../jobs/launch/prepare.ts";
import { SAGA_STEPS, STORE_KILL_POINTS } from "../../jobs/launch/step-names.ts";
import { isolatedEnv, runCli, type Stack, startStack } from "../helpers/cli.ts";
import {
  bearer,
  chainClient,
  createAgentCli,
  launch,
  launchBody,
  launchEnv,
  readRecord,
  stackSql,
  waitWalletsPrepared,
} from "../helpers/launch.ts";

let stack: Stack | undefined;
afterAll(async () => {
  await stack?.cleanup();
});

it("a worker killed after every saga step, and between storing and sending, resumes to exactly one wallet, Safe, NFT and token", async () => {
  // Test mode: the worker SIGKILLs itself once after each step (a "*-sent" step: broadcast, not
  // yet mined), once after storing signed relayer transactions before broadcasting them, and
  // once after storing a four.meme login (at the preparation) and an upload (in the launch)
  // before using them; the supervisor restarts it.
  const env = launchEnv(await isolatedEnv(), {
    LAUNCHPAD_TEST_KILL_POINTS: "all",
    LAUNCHPAD_TEST_MAX_RESTARTS: "25",
    // Ten restarts, each waiting out the dead worker's lease: more than the default 120 s
    // request deadline on a loaded machine. The request still waits for the one saga.
    LAUNCH_DEADLINE_SECONDS: "400",
  });
  stack = await startStack(env);
  const sample = JSON.parse(
    (await runCli(["devnet", "info", "--json"], env)).stdout,
  ).sampleImageUrl;
  const a = await createAgentCli(env, "crash-agent");
  const client = chainClient(env);
  const record = readRecord(env.LAUNCHPAD_DATA_DIR as string);
  const relayerNonce = () => client.getTransactionCount({ address: record.accounts.relayer });
  const relayerBefore = await relayerNonce();
  // The worker prepares the registered agent's wallet before its launch (killed after each of
  // its steps too): one funding transaction, whatever the crashes.
  const prepared = await waitWalletsPrepared(env.LAUNCHPAD_DATA_DIR as string, [a.agentId]);
  expect((await relayerNonce()) - relayerBefore).toBe(1);
  const relayerAtRequest = await relayerNonce();
  const r = await launch(stack.apiUrl, launchBody(a, sample), bearer(a));
  expect(r.status).toBe(200);
  const d = r.body.data;

  const dataDir = env.LAUNCHPAD_DATA_DIR as string;
  const points = [
    ...SAGA_STEPS,
    ...STORE_KILL_POINTS,
    ...PREPARE_KILL_POINTS,
    ...FOURMEME_KILL_POINTS,
  ];
  const kills = readdirSync(join(dataDir, "test-kills")).map((f) => f.split(".").at(-1));
  expect(kills.sort()).toEqual(points.sort());
  expect(stack.output().match(/worker exited \(SIGKILL\); restarting/g)).toHaveLength(
    points.length,
  );
  // Nothing sent twice: the relayer mined the Safe and the entry once each and no top-up (the
  // prepared wallet holds the launch's budget, and a resumed saga does not fund a wallet its
  // createToken spent); the agent wallet (the one prepared) its identity and createToken.
  expect(d.walletAddress).toBe(prepared.get(a.agentId));
  expect((await relayerNonce()) - relayerAtRequest).toBe(2);
  expect(await client.getTransactionCount({ address: d.walletAddress })).toBe(2);

  // four.meme: the image uploaded once (kept by its sha256), and the wallet's login, kept from
  // its preparation through the crashes, not kept once the wallet launched.
  const sql = stackSql(dataDir);
  try {
    expect(await sql`select url from app.fourmeme_images`).toHaveLength(1);
    expect(await sql`select 1 from app.fourmeme_sessions`).toHaveLength(0);
  } finally {
    await sql.end();
  }

  // The signer holds one wallet for the agent.
  // The store file is `{state, mac}` (integrity-checked).
  const store = JSON.parse(readFileSync(join(dataDir, "steward", "store.json"), "utf8")).state;
  expect(
    Object.values(store.wallets).filter((w) => (w as { agentId: string }).agentId === a.agentId),
  ).toHaveLength(1);

  const fromBlock = BigInt(record.deployedAtBlock);
  const c = record.contracts as Record<string, Address>;
  const safes = await client.getLogs({
    address: c.safeProxyFactory,
    event: getAbiItem({ abi: safeProxyFactoryAbi, name: "ProxyCreation" }),
    fromBlock,
  });
  expect(safes.map((l) => l.args.proxy?.toLowerCase())).toEqual([d.treasuryAddress]);
  const nfts = await client.getLogs({
    address: c.identityRegistry,
    event: getAbiItem({ abi: identityRegistryDevnetAbi, name: "Registered" }),
    fromBlock,
  });
  expect(nfts.map((l) => l.args.owner?.toLowerCase())).toEqual([d.walletAddress]);
  const tokens = await client.getLogs({
    address: c.tokenManager2,
    event: getAbiItem({ abi: tokenManager2Abi, name: "TokenCreate" }),
    fromBlock,
  });
  expect(tokens.map((l) => l.args.token?.toLowerCase())).toEqual([d.tokenAddress]);
  const registered = await client.readContract({
    address: c.serviceRegistry as Address,
    abi: serviceRegistryAbi,
    functionName: "tokenCount",
  });
  expect(registered).toBe(1n);
}, 500_000);
