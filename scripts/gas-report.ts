// Prints the gas used by the main paths on a throwaway anvil:
//   npm run gas-report
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  erc20Abi,
  type Hash,
  http,
  parseEther,
  parseEventLogs,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { launchFactoryAbi } from "../abis/LaunchFactory.ts";
import { launchVaultAbi } from "../abis/LaunchVault.ts";
import { tokenManager2Abi } from "../abis/TokenManager2.ts";
import { devnetAccounts } from "../devnet/accounts.ts";
import { startAnvil } from "../devnet/anvil.ts";
import { deployDevnet } from "../devnet/deploy.ts";
import { viemChain } from "../lib/chain.ts";
import { signCreateArgs } from "../lib/create-args.ts";
import { freePort } from "../lib/local/net.ts";

const anvil = await startAnvil({ port: await freePort(), blockTime: 0 });
const dataDir = mkdtempSync(join(tmpdir(), "gas-report-"));
try {
  const record = await deployDevnet({ rpcUrl: anvil.rpcUrl, dataDir });
  const chain = viemChain({ id: record.chainId, name: "devnet", rpcUrls: [anvil.rpcUrl] });
  const transport = http(anvil.rpcUrl);
  const pc = createPublicClient({ chain, transport, pollingInterval: 20 });
  const tc = createTestClient({ chain, mode: "anvil", transport });
  const user = privateKeyToAccount(generatePrivateKey());
  await tc.setBalance({ address: user.address, value: parseEther("1000") });
  const w = createWalletClient({ account: user, chain, transport });
  const rows: [string, bigint][] = [];
  const measure = async (label: string, hash: Hash) => {
    const r = await pc.waitForTransactionReceipt({ hash });
    if (r.status !== "success") throw new Error(`${label} reverted`);
    rows.push([label, r.gasUsed]);
    return r;
  };
  const tm = record.contracts.tokenManager2;
  const manager = { address: tm, abi: tokenManager2Abi } as const;
  const maxRaising = BigInt(record.params.maxRaising);

  const { args, signature } = await signCreateArgs({
    name: "Gas",
    symbol: "GAS",
    requestId: 1n,
    creator: user.address,
    recipient: user.address,
    signer: devnetAccounts().launchpadSigner,
    chainId: record.chainId,
    tokenManager: tm,
  });
  const created = await measure(
    "createToken",
    await w.writeContract({
      ...manager,
      functionName: "createToken",
      args: [args, signature],
      value: BigInt(record.params.launchFee),
    }),
  );
  const token = parseEventLogs({ abi: tokenManager2Abi, logs: created.logs })
    .map((l) => (l.eventName === "TokenCreate" ? l.args.token : undefined))
    .find(Boolean);
  if (!token) throw new Error("no TokenCreate");
  const buy = (funds: bigint) =>
    w.writeContract({
      ...manager,
      functionName: "buyTokenAMAP",
      args: [token, funds, 0n],
      value: funds,
    });
  await measure("buyTokenAMAP (first buy)", await buy(parseEther("0.1")));
  await measure("buyTokenAMAP", await buy(parseEther("0.1")));
  await measure(
    "buyToken",
    await w.writeContract({
      ...manager,
      functionName: "buyToken",
      args: [token, 10n ** 24n, parseEther("1")],
      value: parseEther("1"),
    }),
  );
  await measure(
    "approve (for sell)",
    await w.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: "approve",
      args: [tm, 2n ** 255n],
    }),
  );
  await measure(
    "sellToken",
    await w.writeContract({
      ...manager,
      functionName: "sellToken",
      args: [token, 10n ** 23n],
    }),
  );
  await measure("buyTokenAMAP + graduate", await buy(maxRaising * 2n));

  const close = (await pc.getBlock()).timestamp + 600n;
  const launch = await measure(
    "createLaunch (vault + Safe)",
    await w.writeContract({
      address: record.contracts.launchFactory,
      abi: launchFactoryAbi,
      functionName: "createLaunch",
      args: [0, "Gas Launch", "GASL", "{}", close, 200, 200, user.address],
    }),
  );
  const [ev] = parseEventLogs({
    abi: launchFactoryAbi,
    logs: launch.logs,
    eventName: "LaunchCreated",
  });
  if (!ev) throw new Error("no LaunchCreated");
  const vault = { address: ev.args.vault, abi: launchVaultAbi } as const;
  await measure(
    "deposit",
    await w.writeContract({ ...vault, functionName: "deposit", value: parseEther("2") }),
  );
  await tc.increaseTime({ seconds: 601 });
  await tc.mine({ blocks: 1 });
  for (const step of ["close", "executeLaunch", "claim"] as const) {
    await measure(step, await w.writeContract({ ...vault, functionName: step }));
  }

  console.log("path".padEnd(32), "gas used");
  for (const [label, gas] of rows) console.log(label.padEnd(32), gas.toString().padStart(9));
} finally {
  await anvil.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
