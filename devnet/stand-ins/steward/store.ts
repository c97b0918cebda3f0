import { createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import type { Hex } from "viem";
import { deriveKey, type Sealed, seal, unseal } from "../../../lib/crypto/seal.ts";
import { writeJsonAtomic } from "../../../lib/json-file.ts";
import type { PolicyRule, TxRecord, WebhookConfig } from "../../../services/steward/protocol.ts";
import type { StewardEvent } from "../../../services/steward/webhooks.ts";

/** An agent: `walletId` is Steward's id (`agt_…`), `agentId` the caller's (its platformId). */
export type StoredWallet = {
  walletId: string;
  agentId: string;
  address: Hex;
  key: Sealed;
  name?: string;
  createdAt?: string;
};
/** A signed transaction per Idempotency-Key, or one the chain refused before it was signed. */
export type StoredTx = { hash: Hex; raw: Hex; txId?: string } | { failed: true; txId: string };
/** A completed idempotent request: the answer a repeat gets. */
export type IdempotentAnswer = { fingerprint: string; status: number; body: unknown };
/** A delivery not yet acknowledged: retried until the receiver answers 2xx. */
export type Outgoing = { webhookId: string; body: StewardEvent & { deliveryId: string } };
/** A registered webhook with its signing secret. */
export type StoredWebhook = WebhookConfig & { secret: string };

type State = {
  wallets: Record<string, StoredWallet>;
  byAgent: Record<string, string>;
  txs: Record<string, StoredTx>;
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
  outbox: [],
  idempotent: {},
  transactions: {},
  rules: {},
  webhooks: {},
});

/**
 * The stand-in's storage: one JSON file, written atomically (temp file + rename) after each
 * change, with an HMAC-SHA256 over the whole state under a key derived from the master key:
 * an edited rule set or wallet table fails the check at start instead of being obeyed.
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
      // A store from before integrity checks: its wallets are kept, nothing else.
      const old = file as unknown as State;
      this.#state = { ...EMPTY(), wallets: old.wallets, byAgent: old.byAgent, txs: old.txs };
      log?.warn({ path }, "steward store upgraded: integrity MAC added");
      this.#save();
      return;
    }
    const want = Buffer.from(this.#mac(JSON.stringify(file.state)), "hex");
    const got = Buffer.from(file.mac, "hex");
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      throw new Error(`steward store ${path} fails its integrity check: refusing to start`);
    }
    // Fields of older versions (the service's policy, ledger, nonces) are dropped on the next save.
    const { policies, active, ledger, leverage, nonces, ...rest } = file.state as State &
      Record<string, unknown>;
    this.#state = { ...EMPTY(), ...(rest as State) };
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
    this.#save();
  }
  tx(key: string): StoredTx | undefined {
    return this.#state.txs[key];
  }
  addTx(key: string, tx: StoredTx): void {
    this.#state.txs[key] = tx;
    this.#save();
  }
  /**
   * Records what a signature commits to, in one write with the webhook that reports it.
   * Written before the signature leaves the signer.
   */
  record(
    _walletId: string,
    r: {
      webhook?: Outgoing;
      tx?: [string, StoredTx];
      transaction?: TxRecord;
      webhooks?: Outgoing[];
    },
  ): void {
    if (r.tx) this.#state.txs[r.tx[0]] = r.tx[1];
    if (r.transaction) this.#state.transactions[r.transaction.id] = r.transaction;
    if (r.webhooks) this.#state.outbox.push(...r.webhooks);
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
  #mac(text: string): string {
    return createHmac("sha256", this.#macKey).update(text).digest("hex");
  }
  #save(): void {
    const text = JSON.stringify(this.#state);
    writeJsonAtomic(this.#path, { state: this.#state, mac: this.#mac(text) }, { private: true });
  }
}
