import {
  type Address,
  decodeFunctionData,
  getAddress,
  type Hex,
  keccak256,
  type PublicClient,
  parseAbiItem,
  sliceHex,
  toHex,
  zeroAddress,
} from "viem";
import { safeL2Abi } from "../../../abis/SafeL2.ts";

const EXECUTION_SUCCESS = parseAbiItem(
  "event ExecutionSuccess(bytes32 indexed txHash, uint256 payment)",
);
const SENTINEL = "0x0000000000000000000000000000000000000001";
// Storage slots the Safe keeps outside its declared variables (Safe.sol / GuardManager.sol).
const FALLBACK_HANDLER_SLOT = keccak256(toHex("fallback_manager.handler.address"));
const GUARD_SLOT = keccak256(toHex("guard_manager.guard.address"));

/** `GET /api/v1/safes/{address}/` as SafeInfoResponseSerializer writes it (read from the chain). */
export type SafeInfo = {
  address: Address;
  nonce: string;
  threshold: number;
  owners: Address[];
  masterCopy: Address;
  modules: Address[];
  fallbackHandler: Address;
  guard: Address;
  moduleGuard: Address;
  version: string | null;
};

const slotAddress = (word: Hex | undefined): Address =>
  word ? getAddress(sliceHex(word, 12, 32)) : zeroAddress;

/**
 * The Safe at `address` read from the chain, or undefined when no Safe lives there (the
 * service answers 404 for a Safe it does not index).
 */
export async function readSafeInfo(
  client: PublicClient,
  address: Address,
): Promise<SafeInfo | undefined> {
  const read = <T>(functionName: string, args: unknown[] = []) =>
    client.readContract({ address, abi: safeL2Abi, functionName, args } as never) as Promise<T>;
  try {
    const [owners, threshold, nonce, version, modules, master, handler, guard] = await Promise.all([
      read<Address[]>("getOwners"),
      read<bigint>("getThreshold"),
      read<bigint>("nonce"),
      read<string>("VERSION").catch(() => null),
      read<[Address[], Address]>("getModulesPaginated", [SENTINEL, 50n]),
      client.getStorageAt({ address, slot: toHex(0, { size: 32 }) }),
      client.getStorageAt({ address, slot: FALLBACK_HANDLER_SLOT }),
      client.getStorageAt({ address, slot: GUARD_SLOT }),
    ]);
    return {
      address,
      nonce: String(nonce),
      threshold: Number(threshold),
      owners: owners.map((o) => getAddress(o)),
      masterCopy: slotAddress(master),
      modules: modules[0].map((m) => getAddress(m)),
      fallbackHandler: slotAddress(handler),
      guard: slotAddress(guard),
      // Safe ≤1.4.1 has no module guard; the service answers the zero address.
      moduleGuard: zeroAddress,
      version,
    };
  } catch {
    return undefined;
  }
}

/** What the service's indexer fills in once a transaction is executed on the chain. */
export type Execution = {
  transactionHash: Hex;
  blockNumber: number;
  executionDate: string;
  executor: Address;
  signatures: Hex | null;
  payment: string;
  gasUsed: number;
  ethGasPrice: string;
  fee: string;
  maxFeePerGas: string | null;
  maxPriorityFeePerGas: string | null;
};

/** The execution of `safeTxHash` by `safe` when its ExecutionSuccess is on the chain. */
export async function findExecution(
  client: PublicClient,
  safe: Address,
  safeTxHash: Hex,
): Promise<Execution | undefined> {
  const [log] = await client.getLogs({
    address: safe,
    event: EXECUTION_SUCCESS,
    args: { txHash: safeTxHash },
    fromBlock: 0n,
  });
  if (!log?.transactionHash || log.blockNumber === null) return undefined;
  const [block, tx, receipt] = await Promise.all([
    client.getBlock({ blockNumber: log.blockNumber }),
    client.getTransaction({ hash: log.transactionHash }),
    client.getTransactionReceipt({ hash: log.transactionHash }),
  ]);
  let signatures: Hex | null = null;
  try {
    const call = decodeFunctionData({ abi: safeL2Abi, data: tx.input });
    if (call.functionName === "execTransaction") signatures = call.args[9] as Hex;
  } catch {
    // Executed through another contract (a module, a batch): the service leaves them null too.
  }
  const gasPrice = receipt.effectiveGasPrice;
  return {
    transactionHash: log.transactionHash,
    blockNumber: Number(log.blockNumber),
    executionDate: new Date(Number(block.timestamp) * 1000).toISOString(),
    executor: getAddress(tx.from),
    signatures,
    payment: String(log.args.payment ?? 0n),
    gasUsed: Number(receipt.gasUsed),
    ethGasPrice: String(gasPrice),
    fee: String(receipt.gasUsed * gasPrice),
    maxFeePerGas: tx.maxFeePerGas !== undefined ? String(tx.maxFeePerGas) : null,
    maxPriorityFeePerGas:
      tx.maxPriorityFeePerGas !== undefined ? String(tx.maxPriorityFeePerGas) : null,
  };
}
