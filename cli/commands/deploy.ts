import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Command, InvalidArgumentError } from "commander";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  fallback,
  type Hex,
  http,
  isAddress,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { viemChain } from "../../lib/chain.ts";
import { ConfigError, loadConfig, readDotEnv } from "../../lib/config.ts";
import { decryptKeystore } from "../../lib/crypto/keystore.ts";
import { promptHidden } from "../prompt.ts";

type DeployOptions = {
  owner: Address;
  relayer?: Address;
  platform?: Address;
  treasuryShareBps: number;
  keystore?: string;
  out?: string;
  chainId: number;
  salt?: Hex;
  dryRun?: boolean;
  json?: boolean;
  allowEoaOwner?: boolean;
};

const addressArg = (value: string): Address => {
  if (!isAddress(value, { strict: false })) throw new InvalidArgumentError("not an address");
  return value.toLowerCase() as Address;
};
const intArg = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("not a whole number");
  return n;
};
const saltArg = (value: string): Hex => {
  if (!/^0x[0-9a-fA-F]{64}$/.test(value)) throw new InvalidArgumentError("not 32 bytes of hex");
  return value as Hex;
};

export function deployCommand(): Command {
  return new Command("deploy")
    .description(
      "deploy the service's own contracts (TokenDeployer, LaunchFactory, ServiceRegistry) to BSC_RPC_URL at CREATE2 addresses, configure them and hand them to --owner (docs/deploy.md)",
    )
    .requiredOption(
      "--owner <address>",
      "owner after the hand-over (the operator's Safe)",
      addressArg,
    )
    .option(
      "--relayer <address>",
      "the ServiceRegistry's registrar (default: RELAYER_PRIVATE_KEY's address)",
      addressArg,
    )
    .option(
      "--platform <address>",
      "receives the platform share of deposit-launch token taxes (default: --owner)",
      addressArg,
    )
    .option("--treasury-share-bps <n>", "share of token taxes to a launch's treasury", intArg, 5000)
    .option(
      "--keystore <file>",
      "encrypted key file (Web3 Secret Storage v3); password from DEPLOYER_KEYSTORE_PASSWORD or a prompt (default key: DEPLOYER_PRIVATE_KEY)",
    )
    .option("--out <dir>", "record and verification inputs (default: deployments/<chain id>)")
    .option("--chain-id <n>", "the chain id the RPC must have", intArg, 56)
    .option("--salt <hex32>", "CREATE2 salt (another salt: another set of addresses)", saltArg)
    .option("--dry-run", "plan, price and check; send nothing")
    .option("--allow-eoa-owner", "allow an --owner without code (not a Safe)")
    .option("--json", "print the result as JSON")
    .action(async (opts: DeployOptions) => {
      try {
        await deploy(opts);
      } catch (error) {
        if (error instanceof ConfigError) throw error;
        const { DeployRefusedError, DeployFailedError } = await import(
          "../../contracts/deploy/deploy.ts"
        );
        if (error instanceof DeployRefusedError || error instanceof DeployFailedError) {
          process.stderr.write(`launchpad deploy: ${error.message}\n`);
          process.exit(1);
        }
        throw error;
      }
    });
}

async function deploy(opts: DeployOptions): Promise<void> {
  const config = loadConfig();
  if (config.devnet) {
    throw new ConfigError(
      "BSC_RPC_URL",
      "launchpad deploy sends to BSC_RPC_URL; unset, the devnet deploys its own (launchpad devnet)",
    );
  }
  const { deployServiceContracts, DeployRefusedError, formatBnb } = await import(
    "../../contracts/deploy/deploy.ts"
  );
  const { DEFAULT_SALT, DEFAULT_TIERS } = await import("../../contracts/deploy/service-set.ts");
  const env = { ...readDotEnv(), ...process.env };
  const key = await deployerKey(opts, env);
  const account = privateKeyToAccount(key);
  const relayer =
    opts.relayer ??
    (config.RELAYER_PRIVATE_KEY
      ? (privateKeyToAccount(config.RELAYER_PRIVATE_KEY).address.toLowerCase() as Address)
      : undefined);
  if (!relayer) {
    throw new ConfigError(
      "RELAYER_PRIVATE_KEY",
      "or --relayer names the ServiceRegistry's registrar",
    );
  }

  const chain = viemChain({ id: opts.chainId, rpcUrls: config.rpcUrls });
  const transport = fallback(config.rpcUrls.map((url) => http(url, { timeout: 30_000 })));
  const client = createPublicClient({ chain, transport, pollingInterval: 1_000 }) as PublicClient;
  const wallet = createWalletClient({ account, chain, transport });

  const outside: [string, Address][] = [
    ["DEX_ROUTER_ADDRESS", config.DEX_ROUTER_ADDRESS],
    ["SAFE_PROXY_FACTORY_ADDRESS", config.SAFE_PROXY_FACTORY_ADDRESS],
    ["SAFE_L2_SINGLETON_ADDRESS", config.SAFE_L2_SINGLETON_ADDRESS],
    ["SAFE_FALLBACK_HANDLER_ADDRESS", config.SAFE_FALLBACK_HANDLER_ADDRESS],
  ];
  const chainId = await client.getChainId();
  if (chainId === opts.chainId) {
    for (const [name, address] of outside) {
      if (!(await hasCode(client, address))) {
        throw new DeployRefusedError(`${name} ${address} has no code on chain ${chainId}`);
      }
    }
    if (!opts.allowEoaOwner && !(await hasCode(client, opts.owner))) {
      throw new DeployRefusedError(
        `--owner ${opts.owner} has no code: not a Safe (pass --allow-eoa-owner to hand the contracts to a plain key)`,
      );
    }
  }

  const out = opts.out ?? join("deployments", String(opts.chainId));
  const result = await deployServiceContracts({
    client,
    wallet,
    inputs: {
      salt: opts.salt ?? DEFAULT_SALT,
      router: config.DEX_ROUTER_ADDRESS,
      pairInitCodeHash: config.PAIR_INIT_CODE_HASH,
      safeProxyFactory: config.SAFE_PROXY_FACTORY_ADDRESS,
      safeSingleton: config.SAFE_L2_SINGLETON_ADDRESS,
      safeFallbackHandler: config.SAFE_FALLBACK_HANDLER_ADDRESS,
    },
    settings: {
      owner: opts.owner,
      relayer,
      platform: opts.platform ?? opts.owner,
      treasuryShareBps: opts.treasuryShareBps,
      tiers: DEFAULT_TIERS,
    },
    expectedChainId: opts.chainId,
    outDir: out,
    dryRun: opts.dryRun,
    log: opts.json ? undefined : (line) => process.stderr.write(`${line}\n`),
  });

  if (opts.json) {
    const json = {
      chainId: result.chainId,
      deployer: result.deployer,
      dryRun: opts.dryRun === true,
      contracts: Object.fromEntries(
        Object.values(result.set).map((c) => [
          c.key,
          { name: c.name, address: c.address, deployed: result.plan.state.deployed[c.key] },
        ]),
      ),
      steps: result.plan.steps.map((s) => ({
        label: s.label,
        to: s.to,
        gas: s.gas.toString(),
        estimated: s.estimated,
      })),
      gas: result.gas.toString(),
      gasPrice: result.gasPrice.toString(),
      costWei: result.costWei.toString(),
      balanceWei: result.balanceWei.toString(),
      sent: result.sent.map((s) => ({ ...s, gasUsed: s.gasUsed.toString() })),
      record: opts.dryRun ? undefined : join(out, "deployment.json"),
      env: result.env,
    };
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return;
  }
  const w = (line = "") => process.stdout.write(`${line}\n`);
  w(`chain ${result.chainId}, deployer ${result.deployer}`);
  for (const c of Object.values(result.set)) {
    const state = result.plan.state.deployed[c.key] ? "present" : "to deploy";
    w(`  ${c.name.padEnd(16)} ${c.address}  ${state}`);
  }
  if (result.plan.steps.length === 0) {
    w("nothing to send: the chain matches the settings");
  } else {
    w(`${result.plan.steps.length} transaction(s):`);
    const width = Math.max(...result.plan.steps.map((s) => s.label.length));
    for (const s of result.plan.steps) {
      const gas = s.gas.toString().padStart(9);
      w(`  ${s.label.padEnd(width)} ${gas} gas${s.estimated ? "" : " (budget)"}`);
    }
    w(
      `total ${result.gas} gas at ${result.gasPrice} wei = ${formatBnb(result.costWei)} BNB; the deployer holds ${formatBnb(result.balanceWei)} BNB`,
    );
  }
  if (opts.dryRun) {
    w("dry run: nothing sent");
    return;
  }
  if (result.sent.length > 0) {
    const used = result.sent.reduce((sum, s) => sum + s.gasUsed, 0n);
    w(`sent ${result.sent.length} transaction(s), ${used} gas used`);
  }
  w(`record: ${join(out, "deployment.json")}; verification inputs: ${join(out, "verify")}/`);
  w("the roles' configuration:");
  for (const line of result.env) w(`  ${line}`);
}

async function deployerKey(
  opts: DeployOptions,
  env: Record<string, string | undefined>,
): Promise<Hex> {
  if (opts.keystore) {
    const json = readFileSync(opts.keystore, "utf8");
    const password =
      env.DEPLOYER_KEYSTORE_PASSWORD ??
      (process.stdin.isTTY ? await promptHidden(`password of ${opts.keystore}: `) : undefined);
    if (password === undefined) {
      throw new ConfigError(
        "DEPLOYER_KEYSTORE_PASSWORD",
        "must be set when no terminal can ask for it",
      );
    }
    return decryptKeystore(json, password);
  }
  const key = env.DEPLOYER_PRIVATE_KEY;
  if (!key) {
    throw new ConfigError("DEPLOYER_PRIVATE_KEY", "must be set, or --keystore names a key file");
  }
  // The value itself is never echoed: a mistyped key would be half a secret in a log.
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) {
    throw new ConfigError("DEPLOYER_PRIVATE_KEY", "must be 0x and 64 hex digits");
  }
  return key as Hex;
}

async function hasCode(client: PublicClient, address: Address): Promise<boolean> {
  const code = await client.getCode({ address });
  return code !== undefined && code !== "0x";
}
