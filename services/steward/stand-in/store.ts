import { createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Hex } from "viem";
import { deriveKey, type Sealed, seal, unseal } from "../../../lib/crypto/seal.ts";
import { INITIAL_RULES, type PolicyVersion } from "../../../lib/policy/model.ts";
import type { PolicyRule, TxRecord, WebhookConfig } from "../protocol.ts";
import type { StewardEvent } from "../webhooks.ts";

/** An agent: `walletId` is Steward's id (`agt_…`), `agentId` the caller's (its platformId). */
export type StoredWallet = {
  walletId: string;
  agentId: string;
  address: Hex;
  key: Sealed;
  name?: string;
  createdAt?: string;
};
export type StoredTx = { hash: Hex; raw: Hex; txId?: string };
/** A completed idempotent request: the answer a repeat gets. */
export type IdempotentAnswer = { fingerprint: string; status: number; body: unknown };
/** One trade the signer signed: what the budget and the positions are counted from. */
export type LedgerEntry = {
  at: string;
  venue: string;
  asset: string;
  side: "long" | "short";
  action: "open" | "close";
  /** USD decimal string. */
  notionalUsd: string;
  policyId: string;
  version: number;
  ref: string;
};
/** A delivery not yet acknowledged: retried until the receiver answers 2xx. */
export type Outgoing = { webhookId: string; body: StewardEvent & { deliveryId: string } };
/** A registered webhook with its signing secret. */
export type StoredWebhook = WebhookConfig & { secret: string };

type State = {
  wallets: Record<string, StoredWallet>;
  byAgent: Record<string, string>;
  txs: Record<string, StoredTx>;
  /** Every version ever saved, oldest first; never rewritten. */
  policies: Record<string, PolicyVersion[]>;
  /** The active version's policyId per wallet. */
  active: Record<string, string>;
  ledger: Record<string, LedgerEntry[]>;
  /** Leverage the signer last signed per wallet and coin. */
  leverage: Record<string, Record<string, number>>;
  /** Venue nonces already signed per wallet (a replayed nonce is refused). */
  nonces: Record<string, number[]>;
  outbox: Outgoing[];
  /** Completed answers per Idempotency-Key (tenant-wide, as Steward keys them). */
  idempotent: Record<string, IdempotentAnswer>;
  /** Transactions by Steward's txId (pending approvals, refusals, broadcasts). */
  transactions: Record<string, TxRecord>;
  /** Steward policy rules per agent (`PUT /agents/:id/policies`). */
  rules: Record<string, PolicyRule[]>;
  webhooks: Record<string, StoredWebhook>;
};

const EMPTY = (): State => ({
  wallets: {},
  byAgent: {},
  txs: {},
  policies: {},
  active: {},
  ledger: {},
  leverage: {},
  nonces: {},
  outbox: [],
  idempotent: {},
  transactions: {},
  rules: {},
  webhooks: {},
});
/** Venue nonces remembered per wallet (the venue keeps fewer). */
const NONCES_KEPT = 200;

/**
 * The stand-in's storage: one JSON file, written atomically (temp file + rename) after each
 * change, with an HMAC-SHA256 over the whole state under a key derived from the master key:
 * an edited policy, ledger or wallet table fails the check at start instead of being obeyed.
 * Private keys are sealed (AES-256-GCM); a wrong master key fails at the first unseal.
 */
export class StewardStore {
  readonly #path: string;
  readonly #master: Buffer;
  readonly #macKey: Buffer;
  #state: State;
  constructor(path: string, masterKey: Buffer, log?: { warn: (o: object, m: string) => void }) {
    if (masterKey.length !== 32) throw new Error("steward master key must be 32 bytes");
    this.#path = path;
    this.#master = masterKey;
    this.#macKey = deriveKey(masterKey, "steward-store-integrity");
    this.#state = EMPTY();
    if (!existsSync(path)) return;
    const file = JSON.parse(readFileSync(path, "utf8")) as { state?: State; mac?: string };
    if (file.mac === undefined) {
      // A store from before integrity checks: its policies were rules nobody could set (the
      // old shape), so every wallet restarts from the closed initial policy.
      const old = file as unknown as State;
      this.#state = { ...EMPTY(), wallets: old.wallets, byAgent: old.byAgent, txs: old.txs };
      for (const id of Object.keys(old.wallets ?? {})) this.#initialPolicy(id);
      log?.warn({ path }, "steward store upgraded: integrity MAC added, policies reset");
      this.#save();
      return;
    }
    const want = Buffer.from(this.#mac(JSON.stringify(file.state)), "hex");
    const got = Buffer.from(file.mac, "hex");
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      throw new Error(`steward store ${path} fails its integrity check: refusing to start`);
    }
    this.#state = { ...EMPTY(), ...(file.state as State) };
  }
  seal(privateKey: Hex, walletId: string): Sealed {
    return seal(this.#master, privateKey, walletId);
  }
  unseal(w: StoredWallet): Hex {
    try {
      return unseal(this.#master, w.key, w.walletId) as Hex;
    } catch {
      return unseal(this.#master, w.key) as Hex; // sealed before keys were bound to their wallet
    }
  }
  walletOfAgent(agentId: string): StoredWallet | undefined {
    const id = this.#state.byAgent[agentId];
    return id ? this.#state.wallets[id] : undefined;
  }
  wallet(walletId: string): StoredWallet | undefined {
    return this.#state.wallets[walletId];
  }
  addWallet(w: StoredWallet): void {
    this.#state.wallets[w.walletId] = w;
    this.#state.byAgent[w.agentId] = w.walletId;
    this.#initialPolicy(w.walletId);
    this.#save();
  }
  tx(key: string): StoredTx | undefined {
    return this.#state.txs[key];
  }
  addTx(key: string, tx: StoredTx): void {
    this.#state.txs[key] = tx;
    this.#save();
  }
  /** The active version of a wallet's policy. */
  policy(walletId: string): PolicyVersion | undefined {
    const id = this.#state.active[walletId];
    return this.#state.policies[walletId]?.find((p) => p.policyId === id);
  }
  versions(walletId: string): PolicyVersion[] | undefined {
    return this.#state.policies[walletId];
  }
  /** Appends a version and makes it the active one. */
  addPolicy(walletId: string, p: PolicyVersion): void {
    this.#state.policies[walletId] = [...(this.#state.policies[walletId] ?? []), p];
    this.#state.active[walletId] = p.policyId;
    this.#save();
  }
  ledger(walletId: string): readonly LedgerEntry[] {
    return this.#state.ledger[walletId] ?? [];
  }
  leverage(walletId: string): Record<string, number> {
    return this.#state.leverage[walletId] ?? {};
  }
  nonceUsed(walletId: string, nonce: number): boolean {
    return (this.#state.nonces[walletId] ?? []).includes(nonce);
  }
  /**
   * Records what a signature commits to, in one write with the webhook that reports it:
   * a ledger entry, a leverage, a nonce. Written before the signature leaves the signer.
   */
  record(
    walletId: string,
    r: {
      entry?: LedgerEntry;
      leverage?: [string, number];
      nonce?: number;
      webhook?: Outgoing;
      tx?: [string, StoredTx];
      transaction?: TxRecord;
      webhooks?: Outgoing[];
    },
  ): void {
    if (r.tx) this.#state.txs[r.tx[0]] = r.tx[1];
    if (r.transaction) this.#state.transactions[r.transaction.id] = r.transaction;
    if (r.webhooks) this.#state.outbox.push(...r.webhooks);
    if (r.entry) this.#state.ledger[walletId] = [...this.ledger(walletId), r.entry];
    if (r.leverage) {
      this.#state.leverage[walletId] = {
        ...this.leverage(walletId),
        [r.leverage[0]]: r.leverage[1],
      };
    }
    if (r.nonce !== undefined) {
      this.#state.nonces[walletId] = [...(this.#state.nonces[walletId] ?? []), r.nonce].slice(
        -NONCES_KEPT,
      );
    }
    if (r.webhook) this.#state.outbox.push(r.webhook);
    this.#save();
  }
  outbox(): readonly Outgoing[] {
    return this.#state.outbox;
  }
  delivered(deliveryId: string): void {
    this.#state.outbox = this.#state.outbox.filter((o) => o.body.deliveryId !== deliveryId);
    this.#save();
  }
  idempotent(key: string): IdempotentAnswer | undefined {
    return this.#state.idempotent[key];
  }
  setIdempotent(key: string, a: IdempotentAnswer): void {
    this.#state.idempotent[key] = a;
    this.#save();
  }
  transaction(txId: string): TxRecord | undefined {
    return this.#state.transactions[txId];
  }
  setTransaction(t: TxRecord): void {
    this.#state.transactions[t.id] = t;
    this.#save();
  }
  rules(walletId: string): PolicyRule[] {
    return this.#state.rules[walletId] ?? [];
  }
  setRules(walletId: string, rules: PolicyRule[]): void {
    this.#state.rules[walletId] = rules;
    this.#save();
  }
  webhooks(): StoredWebhook[] {
    return Object.values(this.#state.webhooks);
  }
  addWebhook(w: StoredWebhook): void {
    this.#state.webhooks[w.id] = w;
    this.#save();
  }
  #initialPolicy(walletId: string): void {
    const p: PolicyVersion = {
      policyId: `${walletId}:1`,
      version: 1,
      rules: INITIAL_RULES,
      createdAt: new Date().toISOString(),
      createdBy: { kind: "signer", id: "initial" },
    };
    this.#state.policies[walletId] = [p];
    this.#state.active[walletId] = p.policyId;
  }
  #mac(text: string): string {
    return createHmac("sha256", this.#macKey).update(text).digest("hex");
  }
  #save(): void {
    mkdirSync(dirname(this.#path), { recursive: true, mode: 0o700 });
    const tmp = `${this.#path}.tmp`;
    const text = JSON.stringify(this.#state);
    writeFileSync(tmp, JSON.stringify({ state: this.#state, mac: this.#mac(text) }), {
      mode: 0o600,
    });
    renameSync(tmp, this.#path);
  }
}
