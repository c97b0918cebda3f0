import { existsSync, readFileSync } from "node:fs";
import { type Context, Hono } from "hono";
import { type Address, createPublicClient, getAddress, type Hex, http, isAddress } from "viem";
import { writeJsonAtomic } from "../../../lib/json-file.ts";
import type { Logger } from "../../../lib/logger.ts";
import type { MultisigTransaction } from "../../../services/safe-tx-service/protocol.ts";
import { safeTxHash } from "../../../services/safe-tx-service/protocol.ts";
import { about } from "./about.ts";
import { findExecution, readSafeInfo } from "./chain.ts";
import { listTransactions, type Query } from "./list.ts";
import { originOf, readProposal } from "./proposal.ts";
import { parseSignatures } from "./signatures.ts";
import { safeServiceThrottle } from "./throttle.ts";

export type SafeTxServiceStandInParameters = {
  chainId: number;
  log: Logger;
  /** The chain the Safes live on: owners are read from it and executions seen on it. */
  rpcUrl?: string;
  /** Where the transactions are kept on disk (written after every change); unset: memory only. */
  statePath?: string;
  /** Requests a second per API key (or keyless client); default the hosted service's 5. */
  requestsPerSecond?: number;
};

type Tx = MultisigTransaction;

/**
 * A local stand-in of the Safe Transaction Service (safe-global/safe-transaction-service, the
 * paths and serializers `@safe-global/api-kit` calls): service info, Safe info read from the
 * chain, propose (the hash rebuilt, every signature's owner checked against the Safe's owners),
 * confirm, list with the service's filters and paging, one transaction by safeTxHash. A pending
 * transaction whose `ExecutionSuccess` is on the chain is filled in as the service's indexer
 * would (executor, signatures, gas, fee). Without `rpcUrl` (tests), every signer counts as an
 * owner, the threshold is 1, Safe info is 404 and `/_control/executed` marks executions.
 * With `statePath` the transactions survive a restart of the stand-in.
 */
export function createSafeTxServiceStandIn(p: SafeTxServiceStandInParameters) {
  const app = new Hono();
  const throttle = safeServiceThrottle(p.requestsPerSecond);
  app.use("*", throttle.middleware);
  const txs = new Map<string, Tx>(
    p.statePath && existsSync(p.statePath)
      ? (JSON.parse(readFileSync(p.statePath, "utf8")) as { txs: Tx[] }).txs.map((t) => [
          t.safeTxHash,
          { ...t, dataDecoded: t.dataDecoded ?? null },
        ])
      : [],
  );
  // Written whole to a temporary file, then renamed: a stand-in killed mid-write keeps the
  // previous state, never half of one (as the real service's database would).
  const save = () => {
    if (!p.statePath) return;
    writeJsonAtomic(p.statePath, { txs: [...txs.values()] });
  };
  const client = p.rpcUrl ? createPublicClient({ transport: http(p.rpcUrl) }) : undefined;
  let fail = 0;
  // Test control: list requests hang (until the server is stopped) instead of answering.
  let hang = false;

  const checksum = (a: string) =>
    isAddress(a, { strict: false }) && getAddress(a) === a ? (a as Address) : undefined;
  const badChecksum = (c: Context, a: string) =>
    c.json({ code: 1, message: "Checksum address validation failed", arguments: [a] }, 422);
  const safeState = async (safe: Address) =>
    client ? await readSafeInfo(client, safe) : undefined;
  const touch = (t: Tx) => {
    t.modified = new Date().toISOString();
  };
  /** Fills in pending transactions whose ExecutionSuccess is on the chain. */
  const syncExecutions = async (safe: Address) => {
    if (!client) return;
    for (const t of txs.values()) {
      if (t.safe !== safe || t.isExecuted) continue;
      const e = await findExecution(client, safe, t.safeTxHash as Hex);
      if (!e) continue;
      Object.assign(t, e, { isExecuted: true, isSuccessful: true });
      touch(t);
      save();
    }
  };
  const failing = () => {
    if (fail <= 0) return false;
    fail--;
    return true;
  };
  const serviceUnavailable = (c: Context) => c.json({ detail: "Service Unavailable" }, 503);

  // Django's APPEND_SLASH: a path without its trailing slash is redirected (api-kit asks
  // `/v1/about` and follows the redirect).
  app.get("/api/v1/about", (c) => c.redirect("/api/v1/about/", 301));
  app.get("/api/v1/about/", (c) => c.json(about(c.req.url, c.req.header("host"), p.rpcUrl)));

  app.get("/api/v1/safes/:address/", async (c) => {
    if (failing()) return serviceUnavailable(c);
    const safe = checksum(c.req.param("address"));
    if (!safe) return badChecksum(c, c.req.param("address"));
    const info = await safeState(safe);
    // SafeInfoView answers an unknown Safe with a bare 404 (no body).
    return info ? c.json(info) : c.body(null, 404);
  });

  app.post("/api/v2/safes/:address/multisig-transactions/", async (c) => {
    if (failing()) return serviceUnavailable(c);
    const safe = checksum(c.req.param("address"));
    if (!safe) return badChecksum(c, c.req.param("address"));
    const b = readProposal(await c.req.json().catch(() => ({})));
    if ("errors" in b) return c.json(b.errors, 422);
    const refuse = (message: string) => c.json({ nonFieldErrors: [message] }, 422);
    const hash = safeTxHash(p.chainId, safe, { ...b, data: b.data ?? "0x" });
    if (hash !== b.contractTransactionHash.toLowerCase()) {
      return refuse(
        `Contract-transaction-hash=${hash} does not match provided contract-tx-hash=${b.contractTransactionHash}`,
      );
    }
    const done = [...txs.values()].find(
      (t) => t.safe === safe && t.nonce === b.nonce && t.isExecuted,
    );
    if (done) {
      return refuse(
        `Tx with nonce=${b.nonce} for safe=${safe} already executed in tx-hash=${done.transactionHash}`,
      );
    }
    const info = await safeState(safe);
    const owners = info?.owners;
    if (owners && !owners.includes(b.sender)) {
      return refuse(`Sender=${b.sender} is not an owner or delegate. Current owners=${owners}`);
    }
    const sigs = b.signature ? await parseSignatures(hash, b.signature as Hex) : [];
    if ("error" in sigs) return refuse(sigs.error);
    for (const s of sigs) {
      if (owners ? !owners.includes(s.owner) : s.owner !== b.sender) {
        return refuse(`Signer=${s.owner} is not an owner. Current owners=${owners ?? [b.sender]}`);
      }
    }
    const now = new Date().toISOString();
    const confirmations = sigs.map((s) => ({
      owner: s.owner,
      submissionDate: now,
      transactionHash: null,
      signature: s.signature,
      signatureType: s.signatureType,
    }));
    const known = txs.get(hash);
    if (known) {
      // The service's get_or_create: a proposal sent again adds its signatures, nothing else.
      const fresh = confirmations.filter(
        (x) => !known.confirmations.some((k) => k.owner === x.owner),
      );
      if (fresh.length) {
        known.confirmations.push(...fresh);
        known.trusted = true;
        touch(known);
        save();
      }
      return c.body(null, 201);
    }
    txs.set(hash, {
      safe,
      to: b.to,
      value: b.value,
      data: b.data,
      operation: b.operation,
      gasToken: b.gasToken,
      safeTxGas: b.safeTxGas,
      baseGas: b.baseGas,
      gasPrice: b.gasPrice,
      refundReceiver: b.refundReceiver,
      nonce: b.nonce,
      executionDate: null,
      submissionDate: now,
      modified: now,
      blockNumber: null,
      transactionHash: null,
      safeTxHash: hash,
      proposer: b.sender,
      proposedByDelegate: null,
      executor: null,
      isExecuted: false,
      isSuccessful: null,
      ethGasPrice: null,
      maxFeePerGas: null,
      maxPriorityFeePerGas: null,
      gasUsed: null,
      fee: null,
      payment: null,
      origin: originOf(b.origin),
      // The service decodes only calls to contracts it knows; the stand-in knows none.
      dataDecoded: null,
      confirmationsRequired: info?.threshold ?? 1,
      confirmations,
      trusted: confirmations.length > 0,
      signatures: null,
    });
    save();
    p.log.info({ safe, safeTxHash: hash }, "safe transaction proposed");
    return c.body(null, 201);
  });

  app.get("/api/v2/multisig-transactions/:hash/", async (c) => {
    if (failing()) return serviceUnavailable(c);
    const t = txs.get(c.req.param("hash").toLowerCase());
    if (t) await syncExecutions(t.safe as Address);
    return t
      ? c.json(t)
      : c.json({ detail: "No MultisigTransaction matches the given query." }, 404);
  });

  app.get("/api/v1/multisig-transactions/:hash/confirmations/", (c) => {
    const t = txs.get(c.req.param("hash").toLowerCase());
    const rows = t?.confirmations ?? [];
    return c.json({ count: rows.length, next: null, previous: null, results: rows });
  });

  app.post("/api/v1/multisig-transactions/:hash/confirmations/", async (c) => {
    if (failing()) return serviceUnavailable(c);
    const hash = c.req.param("hash").toLowerCase();
    const { signature } = (await c.req.json().catch(() => ({}))) as { signature?: unknown };
    if (typeof signature !== "string") {
      return c.json({ signature: ["This field is required."] }, 400);
    }
    const t = txs.get(hash);
    if (!t) {
      return c.json(
        { detail: `Multisig transaction with safe-tx-hash=${hash} was not found` },
        404,
      );
    }
    // SafeMultisigConfirmationSerializer raises ValidationError: DRF answers 400 for these.
    const invalid = (message: string) => c.json({ signature: [message] }, 400);
    if (t.isExecuted) return invalid(`Transaction with safe-tx-hash=${hash} was already executed`);
    const sigs = await parseSignatures(t.safeTxHash as Hex, signature as Hex);
    if ("error" in sigs) return invalid(sigs.error);
    const owners = (await safeState(t.safe as Address))?.owners;
    for (const s of sigs) {
      if (owners && !owners.includes(s.owner)) {
        return invalid(`Signer=${s.owner} is not an owner. Current owners=${owners}`);
      }
    }
    const now = new Date().toISOString();
    for (const s of sigs) {
      if (t.confirmations.some((x) => x.owner === s.owner)) continue;
      t.confirmations.push({
        owner: s.owner,
        submissionDate: now,
        transactionHash: null,
        signature: s.signature,
        signatureType: s.signatureType,
      });
    }
    t.trusted = true;
    touch(t);
    save();
    return c.body(null, 201);
  });

  const list = (v: 1 | 2) => async (c: Context) => {
    if (hang) return new Promise<Response>(() => {});
    if (failing()) return serviceUnavailable(c);
    const safe = checksum(c.req.param("address") ?? "");
    if (!safe) return badChecksum(c, c.req.param("address") ?? "");
    await syncExecutions(safe);
    const rows = [...txs.values()].filter((t) => t.safe === safe);
    return c.json(listTransactions(rows, c.req.query() as Query, new URL(c.req.url), v));
  };
  app.get("/api/v2/safes/:address/multisig-transactions/", list(2));
  app.get("/api/v1/safes/:address/multisig-transactions/", list(1));

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
  app.get("/_control/state", (c) =>
    c.json({ results: [...txs.values()], rateLimited: throttle.state.rateLimited }),
  );
  return app;
}
