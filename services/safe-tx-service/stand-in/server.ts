import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { type Context, Hono } from "hono";
import {
  type Address,
  createPublicClient,
  getAddress,
  type Hex,
  http,
  isAddress,
  parseAbiItem,
  recoverAddress,
} from "viem";
import type { Logger } from "../../../lib/logger.ts";
import type { MultisigTransaction, ProposeBody } from "../protocol.ts";
import { safeTxHash } from "../protocol.ts";

export type SafeTxServiceStandInParameters = {
  chainId: number;
  log: Logger;
  /** The chain the Safes live on: owners are read from it and executions seen on it. */
  rpcUrl?: string;
  /** Where the transactions are kept on disk (written after every change); unset: memory only. */
  statePath?: string;
};

const SAFE_ABI = [
  parseAbiItem("function getOwners() view returns (address[])"),
  parseAbiItem("function getThreshold() view returns (uint256)"),
];
const EXECUTION_SUCCESS = parseAbiItem(
  "event ExecutionSuccess(bytes32 indexed txHash, uint256 payment)",
);
const MAX_LIMIT = 200;

/**
 * A local stand-in of the Safe Transaction Service: propose (the hash rebuilt and the
 * proposer's signature checked against the Safe's owners on the chain), confirm, list with the
 * service's filters and paging. A listed pending transaction whose `ExecutionSuccess` is on the
 * chain is marked executed, as the service's indexer would. Without `rpcUrl` (tests), every
 * signer counts as an owner, the threshold is 1, and `/_control/executed` marks executions.
 * With `statePath` the transactions survive a restart of the stand-in.
 *
 * @example
 * const app = createSafeTxServiceStandIn({ chainId: 56, rpcUrl, log });
 */
export function createSafeTxServiceStandIn(p: SafeTxServiceStandInParameters) {
  const app = new Hono();
  const txs = new Map<string, MultisigTransaction>(
    p.statePath && existsSync(p.statePath)
      ? (JSON.parse(readFileSync(p.statePath, "utf8")) as { txs: MultisigTransaction[] }).txs.map(
          (t) => [t.safeTxHash, t],
        )
      : [],
  );
  // Written whole to a temporary file, then renamed: a stand-in killed mid-write keeps the
  // previous state, never half of one (as the real service's database would).
  const save = () => {
    if (!p.statePath) return;
    mkdirSync(dirname(p.statePath), { recursive: true });
    const tmp = `${p.statePath}.tmp`;
    writeFileSync(tmp, JSON.stringify({ txs: [...txs.values()] }));
    renameSync(tmp, p.statePath);
  };
  const client = p.rpcUrl ? createPublicClient({ transport: http(p.rpcUrl) }) : undefined;
  let fail = 0;
  // Test control: list requests hang (until the server is stopped) instead of answering.
  let hang = false;

  const checksum = (a: string) => {
    if (!isAddress(a, { strict: false }) || getAddress(a) !== a) return undefined;
    return a as Address;
  };
  const invalid = (message: string, args: unknown[] = []) => ({
    code: 1,
    message,
    arguments: args,
  });
  const owners = async (safe: Address) =>
    client
      ? ((await client.readContract({
          address: safe,
          abi: SAFE_ABI,
          functionName: "getOwners",
        })) as Address[])
      : undefined;
  const threshold = async (safe: Address) =>
    client
      ? Number(
          await client.readContract({ address: safe, abi: SAFE_ABI, functionName: "getThreshold" }),
        )
      : 1;
  const touch = (t: MultisigTransaction) => {
    t.modified = new Date().toISOString();
  };
  /** Marks pending transactions executed when the chain has their ExecutionSuccess. */
  const syncExecutions = async (safe: Address) => {
    if (!client) return;
    for (const t of txs.values()) {
      if (t.safe !== safe || t.isExecuted) continue;
      const [log] = await client.getLogs({
        address: safe,
        event: EXECUTION_SUCCESS,
        args: { txHash: t.safeTxHash as Hex },
        fromBlock: 0n,
      });
      if (!log) continue;
      const block = await client.getBlock({ blockNumber: log.blockNumber as bigint });
      Object.assign(t, {
        isExecuted: true,
        isSuccessful: true,
        transactionHash: log.transactionHash,
        blockNumber: Number(log.blockNumber),
        executionDate: new Date(Number(block.timestamp) * 1000).toISOString(),
      });
      touch(t);
      save();
    }
  };
  const failing = () => {
    if (fail <= 0) return false;
    fail--;
    return true;
  };

  app.post("/api/v2/safes/:address/multisig-transactions/", async (c) => {
    if (failing()) return c.text("Service Unavailable", 503);
    const safe = checksum(c.req.param("address"));
    if (!safe)
      return c.json(invalid("Checksum address validation failed", [c.req.param("address")]), 422);
    const b = (await c.req.json().catch(() => ({}))) as ProposeBody;
    let hash: Hex;
    try {
      hash = safeTxHash(p.chainId, safe, b);
    } catch {
      return c.json({ nonFieldErrors: ["invalid transaction fields"] }, 422);
    }
    if (hash !== b.contractTransactionHash?.toLowerCase()) {
      return c.json(
        {
          nonFieldErrors: [
            `Contract-transaction-hash=${hash} does not match provided contract-tx-hash=${b.contractTransactionHash}`,
          ],
        },
        422,
      );
    }
    if (txs.has(hash))
      return c.json({ nonFieldErrors: ["Tx with safe-tx-hash already exists"] }, 422);
    const sender = isAddress(b.sender ?? "") ? getAddress(b.sender) : undefined;
    const known = await owners(safe);
    if (!sender || (known && !known.includes(sender))) {
      return c.json({ nonFieldErrors: [`${b.sender} is not an owner or delegate`] }, 422);
    }
    const confirmations: MultisigTransaction["confirmations"] = [];
    if (b.signature) {
      const signer = await recoverAddress({
        hash,
        signature: b.signature.slice(0, 132) as Hex,
      }).catch(() => undefined);
      if (signer !== sender)
        return c.json({ nonFieldErrors: ["Signature does not match sender"] }, 422);
      confirmations.push({
        owner: sender,
        submissionDate: new Date().toISOString(),
        transactionHash: null,
        signature: b.signature,
        signatureType: "EOA",
      });
    }
    const now = new Date().toISOString();
    txs.set(hash, {
      safe,
      to: getAddress(b.to),
      value: b.value,
      data: b.data,
      operation: b.operation,
      nonce: String(b.nonce),
      executionDate: null,
      submissionDate: now,
      modified: now,
      blockNumber: null,
      transactionHash: null,
      safeTxHash: hash,
      proposer: sender,
      isExecuted: false,
      isSuccessful: null,
      confirmationsRequired: await threshold(safe),
      confirmations,
    });
    save();
    p.log.info({ safe, safeTxHash: hash }, "safe transaction proposed");
    return c.body(null, 201);
  });

  app.post("/api/v1/multisig-transactions/:hash/confirmations/", async (c) => {
    if (failing()) return c.text("Service Unavailable", 503);
    const t = txs.get(c.req.param("hash").toLowerCase());
    if (!t) return c.json({ detail: "Not found." }, 404);
    if (t.isExecuted) return c.json({ nonFieldErrors: ["Transaction already executed"] }, 422);
    const { signature } = (await c.req.json().catch(() => ({}))) as { signature?: Hex };
    const signer = signature
      ? await recoverAddress({
          hash: t.safeTxHash as Hex,
          signature: signature.slice(0, 132) as Hex,
        }).catch(() => undefined)
      : undefined;
    const known = await owners(t.safe as Address);
    if (!signer || (known && !known.includes(signer))) {
      return c.json({ signature: ["Signer is not an owner"] }, 422);
    }
    if (!t.confirmations.some((x) => x.owner === signer)) {
      t.confirmations.push({
        owner: signer,
        submissionDate: new Date().toISOString(),
        transactionHash: null,
        signature: signature as Hex,
        signatureType: "EOA",
      });
      touch(t);
      save();
    }
    return c.body(null, 201);
  });

  const list = async (c: Context) => {
    if (hang) return new Promise<Response>(() => {});
    if (failing()) return c.text("Service Unavailable", 503);
    const safe = checksum(c.req.param("address") ?? "");
    if (!safe)
      return c.json(invalid("Checksum address validation failed", [c.req.param("address")]), 422);
    await syncExecutions(safe);
    const q = c.req.query();
    let rows = [...txs.values()].filter((t) => t.safe === safe);
    if (q.executed !== undefined) rows = rows.filter((t) => String(t.isExecuted) === q.executed);
    if (q.nonce__gte !== undefined)
      rows = rows.filter((t) => BigInt(t.nonce) >= BigInt(q.nonce__gte as string));
    if (q.modified__gte !== undefined) {
      const since = Date.parse(q.modified__gte);
      rows = rows.filter((t) => Date.parse(t.modified) >= since);
    }
    const order = q.ordering ?? "-nonce";
    const key = order.replace(/^-/, "");
    const val = (t: MultisigTransaction) =>
      key === "modified"
        ? Date.parse(t.modified)
        : key === "created"
          ? Date.parse(t.submissionDate)
          : Number(t.nonce);
    rows.sort((a, b) => (val(a) - val(b)) * (order.startsWith("-") ? -1 : 1));
    const limit = Math.min(Number(q.limit ?? 100), MAX_LIMIT);
    const offset = Number(q.offset ?? 0);
    const url = new URL(c.req.url);
    const at = (o: number) => {
      url.searchParams.set("offset", String(o));
      url.searchParams.set("limit", String(limit));
      return url.toString();
    };
    return c.json({
      count: rows.length,
      countUniqueNonce: new Set(rows.map((r) => r.nonce)).size,
      next: offset + limit < rows.length ? at(offset + limit) : null,
      previous: offset > 0 ? at(Math.max(0, offset - limit)) : null,
      results: rows.slice(offset, offset + limit),
    });
  };
  app.get("/api/v2/safes/:address/multisig-transactions/", list);
  app.get("/api/v1/safes/:address/multisig-transactions/", list);

  // Test controls: mark an execution without a chain, fail the next n requests.
  app.post("/_control/executed", async (c) => {
    const b = (await c.req.json()) as { safeTxHash: string; transactionHash: string };
    const t = txs.get(b.safeTxHash.toLowerCase());
    if (!t) return c.json({ error: "unknown" }, 404);
    Object.assign(t, {
      isExecuted: true,
      isSuccessful: true,
      transactionHash: b.transactionHash,
      executionDate: new Date().toISOString(),
    });
    touch(t);
    save();
    return c.json({ ok: true });
  });
  app.put("/_control/fail", async (c) => {
    const b = (await c.req.json()) as { count?: number; mode?: "error" | "hang" | "off" };
    hang = b.mode === "hang";
    fail = b.mode === "off" ? 0 : (b.count ?? 0);
    return c.json({ ok: true });
  });
  // Every transaction the service holds, for tests comparing a feed with the whole history.
  app.get("/_control/state", (c) => c.json({ results: [...txs.values()] }));
  return app;
}
