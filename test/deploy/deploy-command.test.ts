import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  parseEther,
  parseEventLogs,
  zeroAddress,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchFactoryAbi } from "../../abis/LaunchFactory.ts";
import { safeL2Abi } from "../../abis/SafeL2.ts";
import { safeProxyFactoryAbi } from "../../abis/SafeProxyFactory.ts";
import { serviceRegistryAbi } from "../../abis/ServiceRegistry.ts";
import { DEFAULT_TIERS } from "../../contracts/deploy/service-set.ts";
import { viemChain } from "../../lib/chain.ts";
import { MAINNET } from "../../lib/config.ts";
import { type BareBsc, startBareBsc } from "../helpers/bare-bsc.ts";
import { cleanEnv, ROOT, runCli } from "../helpers/cli.ts";

// `launchpad deploy` as an operator runs it against BSC: here a chain that holds BSC's outside
// contracts at their mainnet addresses and none of the service's. What a dry run prints and
// leaves untouched, the deployment and its hand-over to a Safe, the second run that sends
// nothing, a run killed halfway and resumed, and each refusal that must come before any send.

let bsc: BareBsc;
const chain = viemChain({ rpcUrls: ["http://unused"] });
let client: ReturnType<typeof createPublicClient>;
let safe: Address;
const relayer = privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Address;

async function fundedKey(bnb = "5"): Promise<Hex> {
  const key = generatePrivateKey();
  const test = createTestClient({ mode: "anvil", transport: http(bsc.rpcUrl) });
  await test.setBalance({ address: privateKeyToAccount(key).address, value: parseEther(bnb) });
  return key;
}

/** A 1-of-1 Safe 1.4.1 made through BSC's factory: the owner the contracts are handed to. */
async function makeSafe(): Promise<Address> {
  const key = await fundedKey("1");
  const account = privateKeyToAccount(key);
  const wallet = createWalletClient({ account, chain, transport: http(bsc.rpcUrl) });
  const initializer = encodeFunctionData({
    abi: safeL2Abi,
    functionName: "setup",
    args: [
      [account.address],
      1n,
      zeroAddress,
      "0x",
      MAINNET.safeFallbackHandler,
      zeroAddress,
      0n,
      zeroAddress,
    ],
  });
  const hash = await wallet.writeContract({
    address: MAINNET.safeProxyFactory,
    abi: safeProxyFactoryAbi,
    functionName: "createProxyWithNonce",
    args: [MAINNET.safeL2Singleton, initializer, 1n],
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  const [created] = parseEventLogs({
    abi: safeProxyFactoryAbi,
    logs: receipt.logs,
    eventName: "ProxyCreation",
  });
  if (!created) throw new Error("no ProxyCreation");
  return created.args.proxy.toLowerCase() as Address;
}

const env = (key: Hex) => ({
  BSC_RPC_URL: bsc.rpcUrl,
  PAIR_INIT_CODE_HASH: bsc.pairInitCodeHash,
  DEPLOYER_PRIVATE_KEY: key,
});
const deploy = (key: Hex, out: string, ...extra: string[]) =>
  runCli(
    ["deploy", "--owner", safe, "--relayer", relayer, "--out", out, ...extra],
    env(key),
    120_000,
  );
const nonceOf = (key: Hex) =>
  client.getTransactionCount({ address: privateKeyToAccount(key).address });
const tmp = () => mkdtempSync(join(tmpdir(), "deploy-"));

beforeAll(async () => {
  bsc = await startBareBsc({ blockTime: 1 });
  client = createPublicClient({ chain, transport: http(bsc.rpcUrl), pollingInterval: 100 });
  safe = await makeSafe();
}, 120_000);
afterAll(async () => {
  await bsc?.stop();
});

describe("launchpad deploy", () => {
  it("dry-runs, deploys and hands over to the Safe, then finds nothing to send", async () => {
    const key = await fundedKey();
    const out = tmp();

    const dry = await deploy(key, out, "--dry-run", "--json");
    expect(dry.stderr).toBe("");
    expect(dry.code).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan.dryRun).toBe(true);
    // Three deployments, three tiers, the platform, the registrar, two hand-overs.
    expect(plan.steps.map((s: { label: string }) => s.label.split("(")[0])).toEqual([
      "deploy TokenDeployer",
      "deploy LaunchFactory",
      "deploy ServiceRegistry",
      "setTier",
      "setTier",
      "setTier",
      "setPlatform",
      "setRegistrar",
      "transferOwnership",
      "transferOwnership",
    ]);
    expect(BigInt(plan.costWei)).toBe(BigInt(plan.gas) * BigInt(plan.gasPrice));
    expect(await nonceOf(key)).toBe(0);
    for (const c of Object.values(plan.contracts) as { address: Address }[]) {
      expect(await client.getCode({ address: c.address })).toBeUndefined();
    }
    expect(existsSync(join(out, "deployment.json"))).toBe(false);

    const real = await deploy(key, out);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toContain("sent 10 transaction(s)");
    expect(await nonceOf(key)).toBe(10);
    const factory = plan.contracts.launchFactory.address as Address;
    const registry = plan.contracts.serviceRegistry.address as Address;
    const record = JSON.parse(readFileSync(join(out, "deployment.json"), "utf8"));
    expect(record.complete).toBe(true);
    expect(record.contracts.launchFactory.address).toBe(factory);
    const blocks = Object.values(record.contracts).map((c) => (c as { block: number }).block);
    expect(record.startBlock).toBe(Math.min(...blocks));
    expect(real.stdout).toContain(`SERVICE_REGISTRY_ADDRESS=${registry}`);
    expect(real.stdout).toContain(`LAUNCH_FACTORY_ADDRESS=${factory}`);
    expect(real.stdout).toContain(`BSC_START_BLOCK=${record.startBlock}`);
    // The key is nowhere in what the command printed or wrote.
    expect(`${dry.stdout}${real.stdout}${real.stderr}`).not.toContain(key.slice(2));
    expect(readFileSync(join(out, "deployment.json"), "utf8")).not.toContain(key.slice(2));

    const read = <T>(
      address: Address,
      abi: typeof launchFactoryAbi | typeof serviceRegistryAbi,
      functionName: string,
      args: unknown[] = [],
    ) => client.readContract({ address, abi, functionName, args } as never) as Promise<T>;
    expect((await read<Address>(factory, launchFactoryAbi, "owner")).toLowerCase()).toBe(safe);
    expect((await read<Address>(registry, serviceRegistryAbi, "owner")).toLowerCase()).toBe(safe);
    expect((await read<Address>(registry, serviceRegistryAbi, "registrar")).toLowerCase()).toBe(
      relayer,
    );
    expect((await read<Address>(factory, launchFactoryAbi, "platform")).toLowerCase()).toBe(safe);
    for (const t of DEFAULT_TIERS) {
      const tier = await read<{ maxRaise: bigint; enabled: boolean }>(
        factory,
        launchFactoryAbi,
        "tiers",
        [t.id],
      );
      expect(tier).toMatchObject({ maxRaise: t.maxRaise, enabled: true });
    }
    for (const name of ["TokenDeployer", "LaunchFactory", "ServiceRegistry"]) {
      const v = JSON.parse(readFileSync(join(out, "verify", `${name}.json`), "utf8"));
      expect(v.contractName).toBe(`${name}.sol:${name}`);
      expect(v.compilerVersion).toMatch(/^v0\.8\.\d+\+commit\.[0-9a-f]{8}$/);
    }

    const again = await deploy(key, out);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("nothing to send: the chain matches the settings");
    expect(await nonceOf(key)).toBe(10);
  });

  it("resumes a deployment killed after its first transaction, deploying nothing twice", async () => {
    const key = await fundedKey();
    const out = tmp();
    const salt = `0x${"11".repeat(32)}`;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          join(ROOT, "bin", "launchpad.js"),
          "deploy",
          "--owner",
          safe,
          "--relayer",
          relayer,
          "--out",
          out,
          "--salt",
          salt,
        ],
        { cwd: ROOT, env: cleanEnv(env(key)) },
      );
      let stderr = "";
      child.stderr.on("data", (d) => {
        stderr += d;
        if (stderr.includes("sent deploy TokenDeployer")) child.kill("SIGKILL");
      });
      child.on("exit", (code, signal) =>
        signal === "SIGKILL"
          ? resolve()
          : reject(new Error(`exited ${code} before the kill: ${stderr}`)),
      );
    });
    const record = JSON.parse(readFileSync(join(out, "deployment.json"), "utf8"));
    expect(record.complete).toBe(false);

    const resumed = await deploy(key, out, "--salt", salt);
    expect(resumed.code, resumed.stderr).toBe(0);
    // Whatever the killed run had sent, the two runs together sent the plan once: 10 nonces.
    expect(await nonceOf(key)).toBe(10);
    const done = JSON.parse(readFileSync(join(out, "deployment.json"), "utf8"));
    expect(done.complete).toBe(true);
    expect(typeof done.startBlock).toBe("number");
  });

  it("refuses before sending anything: wrong chain, no funds, another key, a record the chain contradicts, a setting only the Safe can change", async () => {
    const key = await fundedKey();
    const out = tmp();
    expect((await deploy(key, out)).code).toBe(0);
    const oneLine = async (
      r: Promise<{ code: number | null; stderr: string }>,
      pattern: RegExp,
    ) => {
      const { code, stderr } = await r;
      expect(code).toBe(1);
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).toMatch(pattern);
    };

    await oneLine(deploy(key, tmp(), "--chain-id", "97"), /the RPC is chain 56, not 97/);
    const poor = await fundedKey("0.000001");
    await oneLine(
      deploy(poor, tmp(), "--salt", `0x${"22".repeat(32)}`),
      /holds 0\.000001 BNB, the plan needs/,
    );
    expect(await nonceOf(poor)).toBe(0);
    const other = await fundedKey();
    await oneLine(deploy(other, out), /was deployed by 0x[0-9a-fA-F]{40}, this key is/);
    expect(await nonceOf(other)).toBe(0);

    const path = join(out, "deployment.json");
    const record = JSON.parse(readFileSync(path, "utf8"));
    const wrong = {
      ...record,
      contracts: {
        ...record.contracts,
        serviceRegistry: {
          ...record.contracts.serviceRegistry,
          address: "0x000000000000000000000000000000000000dead",
        },
      },
    };
    writeFileSync(path, JSON.stringify(wrong));
    await oneLine(deploy(key, out), /names ServiceRegistry at 0x0+dead, these inputs give/);
    writeFileSync(path, JSON.stringify(record));

    const before = await nonceOf(key);
    await oneLine(
      runCli(["deploy", "--owner", safe, "--relayer", safe, "--out", out], env(key), 120_000),
      /1 setting\(s\) differ on contracts this key .* does not own \(first: setRegistrar/,
    );
    await oneLine(
      runCli(
        ["deploy", "--owner", relayer, "--relayer", relayer, "--out", tmp()],
        env(key),
        120_000,
      ),
      /--owner .* has no code: not a Safe/,
    );
    expect(await nonceOf(key)).toBe(before);
  });
});
