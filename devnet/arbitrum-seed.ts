import {
  createPublicClient,
  createWalletClient,
  http,
  parseAbi,
  parseEther,
  parseUnits,
  toHex,
} from "viem";
import { ARBITRUM_CHAIN_ID } from "../lib/arbitrum.ts";
import { viemChain } from "../lib/chain.ts";
import { devnetAccounts } from "./accounts.ts";
import { readArbitrumRecord } from "./arbitrum.ts";
import { newestDepositAddress } from "./launched-agents.ts";

type Address = `0x${string}`;

const usdcAbi = parseAbi([
  "function mint(address to, uint256 value)",
  "function transfer(address to, uint256 value) returns (bool)",
]);
/** What the seed moves: USDC minted to the agent, and the part it deposits to the perps bridge. */
export const ARBITRUM_SEED_USDC = { minted: "250", deposited: "100" } as const;

export type SeedArbitrumParameters = {
  dataDir: string;
  /** The deposit address; default: the newest agent's (a registered perps wallet, else its own wallet). */
  address?: Address;
  log?: (line: string) => void;
};

/**
 * USDC on the local Arbitrum chain for one agent: minted to its perps deposit address, then
 * part of it sent to the venue's bridge address (the devnet impersonates the address, whose key
 * the steward holds), so its feed shows a `bridge.completed` and a `perps.deposit.sent`.
 * Does nothing (and says so) when no agent has a deposit address yet.
 */
export async function seedArbitrum(p: SeedArbitrumParameters): Promise<Address | undefined> {
  const log = p.log ?? (() => {});
  const record = readArbitrumRecord(p.dataDir);
  if (!record) {
    log("arbitrum: no local Arbitrum chain (no devnet/arbitrum.json): USDC not seeded");
    return undefined;
  }
  const address =
    p.address ??
    (await newestDepositAddress(p.dataDir).catch((error: unknown) => {
      log(`arbitrum: could not read the agents (${String(error)})`);
      return undefined;
    }));
  if (!address) {
    log("arbitrum: no agent with a deposit address yet (launch one first): USDC not seeded");
    return undefined;
  }
  const chain = viemChain({ rpcUrls: [record.rpcUrl], id: ARBITRUM_CHAIN_ID, name: "arbitrum" });
  const client = createPublicClient({ chain, transport: http(record.rpcUrl) });
  const minter = createWalletClient({
    account: devnetAccounts().deployer,
    chain,
    transport: http(record.rpcUrl),
  });
  const wait = (hash: `0x${string}`) =>
    client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  await wait(
    await minter.writeContract({
      address: record.usdc,
      abi: usdcAbi,
      functionName: "mint",
      args: [address, parseUnits(ARBITRUM_SEED_USDC.minted, 6)],
    }),
  );
  await client.request({
    method: "anvil_setBalance" as never,
    params: [address, toHex(parseEther("1"))] as never,
  });
  await client.request({ method: "anvil_impersonateAccount" as never, params: [address] as never });
  const agent = createWalletClient({ account: address, chain, transport: http(record.rpcUrl) });
  await wait(
    await agent.writeContract({
      address: record.usdc,
      abi: usdcAbi,
      functionName: "transfer",
      args: [record.bridge, parseUnits(ARBITRUM_SEED_USDC.deposited, 6)],
    }),
  );
  await client.request({
    method: "anvil_stopImpersonatingAccount" as never,
    params: [address] as never,
  });
  log(
    `arbitrum: ${ARBITRUM_SEED_USDC.minted} USDC to ${address}, ${ARBITRUM_SEED_USDC.deposited} of it to the perps bridge ${record.bridge}`,
  );
  return address;
}
