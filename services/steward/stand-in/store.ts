import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Hex } from "viem";
import { type Sealed, seal, unseal } from "../../../lib/crypto/seal.ts";
import type { Policy } from "../protocol.ts";

export type StoredWallet = { walletId: string; agentId: string; address: Hex; key: Sealed };
export type StoredTx = { hash: Hex; raw: Hex };
type State = {
  wallets: Record<string, StoredWallet>;
  byAgent: Record<string, string>;
  txs: Record<string, StoredTx>;
  policies: Record<string, Policy[]>;
};

/**
 * The stand-in's storage: one JSON file, written atomically (temp file + rename) after each
 * change. Private keys never touch the disk in clear; a wrong master key fails GCM's tag check
 * at the first unseal instead of signing with garbage.
 */
export class StewardStore {
  readonly #path: string;
  readonly #master: Buffer;
  #state: State;
  constructor(path: string, masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error("steward master key must be 32 bytes");
    this.#path = path;
    this.#master = masterKey;
    this.#state = existsSync(path)
      ? (JSON.parse(readFileSync(path, "utf8")) as State)
      : { wallets: {}, byAgent: {}, txs: {}, policies: {} };
  }
  seal(privateKey: Hex): Sealed {
    return seal(this.#master, privateKey);
  }
  unseal(s: Sealed): Hex {
    return unseal(this.#master, s) as Hex;
  }
  walletOfAgent(agentId: string): StoredWallet | undefined {
    const id = this.#state.byAgent[agentId];
    return id ? this.#state.wallets[id] : undefined;
  }
  wallet(walletId: string): StoredWallet | undefined {
    return this.#state.wallets[walletId];
  }
  addWallet(w: StoredWallet, policy: Policy): void {
    this.#state.wallets[w.walletId] = w;
    this.#state.byAgent[w.agentId] = w.walletId;
    this.#state.policies[w.walletId] = [policy];
    this.#save();
  }
  tx(key: string): StoredTx | undefined {
    return this.#state.txs[key];
  }
  addTx(key: string, tx: StoredTx): void {
    this.#state.txs[key] = tx;
    this.#save();
  }
  policy(walletId: string): Policy | undefined {
    return this.#state.policies[walletId]?.at(-1);
  }
  addPolicy(walletId: string, p: Policy): void {
    const versions = this.#state.policies[walletId] ?? [];
    versions.push(p);
    this.#state.policies[walletId] = versions;
    this.#save();
  }
  #save(): void {
    mkdirSync(dirname(this.#path), { recursive: true, mode: 0o700 });
    const tmp = `${this.#path}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.#state), { mode: 0o600 });
    renameSync(tmp, this.#path);
  }
}
