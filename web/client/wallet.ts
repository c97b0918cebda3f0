import { getAddress, type Hex } from "viem";
import { createSiweMessage } from "viem/siwe";

// The browser wallet, shared by the islands that act for it: an injected EIP-1193 wallet
// (window.ethereum), Sign-In with Ethereum against the API (its session cookie: the API allows
// the web app's origin with credentials), and transactions the wallet signs, sends and pays for.

export type Eip1193 = { request: (a: { method: string; params?: unknown[] }) => Promise<unknown> };

/** The page's injected wallet, if the browser has one. */
export const provider = () => (window as unknown as { ethereum?: Eip1193 }).ethereum;

/** A wallet's or the API's error as one short line for the page. */
export function errorText(e: unknown): string {
  const m = (e as { message?: string })?.message ?? String(e);
  return m.length > 200 ? `${m.slice(0, 200)}…` : m;
}

/** Asks the wallet for its account (it may prompt the user). */
export async function requestAccount(p: Eip1193): Promise<Hex> {
  const accounts = (await p.request({ method: "eth_requestAccounts" })) as string[];
  if (!accounts[0]) throw new Error("the wallet shared no account");
  return getAddress(accounts[0]);
}

/** The account the wallet already shares with this site, without a prompt; null if none. */
export async function sharedAccount(p: Eip1193 | undefined): Promise<Hex | null> {
  const accounts = (await p?.request({ method: "eth_accounts" }).catch(() => [])) as
    | string[]
    | undefined;
  return accounts?.[0] ? getAddress(accounts[0]) : null;
}

/** Puts the wallet on `chainId`; false when it would not switch. */
export async function ensureChain(p: Eip1193, chainId: number): Promise<boolean> {
  if (Number(await p.request({ method: "eth_chainId" })) === chainId) return true;
  try {
    await p.request({
      method: "wallet_switchEthereumChain",
      params: [{ chainId: `0x${chainId.toString(16)}` }],
    });
    return true;
  } catch {
    return false;
  }
}

/** The wallet address of this browser's SIWE session at the API (lowercase), or null. */
export async function sessionAddress(apiUrl: string): Promise<string | null> {
  const res = await fetch(`${apiUrl}/auth/session`, { credentials: "include" }).catch(() => null);
  if (!res?.ok) return null;
  return ((await res.json()) as { data: { address: string } }).data.address.toLowerCase();
}

export type SignInParameters = {
  apiUrl: string;
  account: Hex;
  chainId: number;
  /** What the wallet shows the user they sign in for. */
  statement: string;
};

/**
 * Signs `account` in at the API with SIWE (a nonce, `personal_sign` of the EIP-4361 message for
 * this site, then `/auth/verify`, which sets the session cookie). Throws with the reason.
 *
 * @example
 * await signIn(wallet, { apiUrl, account, chainId: 56, statement: "Sign in to the launchpad." });
 */
export async function signIn(p: Eip1193, s: SignInParameters): Promise<void> {
  const n = await fetch(`${s.apiUrl}/auth/nonce?address=${s.account}`, {
    credentials: "include",
  });
  if (!n.ok) throw new Error(`nonce: the API answered ${n.status}`);
  const { nonce } = ((await n.json()) as { data: { nonce: string } }).data;
  const message = createSiweMessage({
    domain: location.host,
    address: s.account,
    statement: s.statement,
    uri: location.origin,
    version: "1",
    chainId: s.chainId,
    nonce,
    issuedAt: new Date(),
  });
  const signature = await p.request({ method: "personal_sign", params: [message, s.account] });
  const v = await fetch(`${s.apiUrl}/auth/verify`, {
    method: "POST",
    credentials: "include",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message, signature }),
  });
  if (!v.ok) {
    const body = (await v.json().catch(() => ({}))) as { message?: string };
    throw new Error(body.message ?? `the API answered ${v.status}`);
  }
}

/**
 * Has the wallet sign, send and pay for one transaction, then waits for its receipt.
 * `onSent` hears the hash while the block is awaited. Resolves with whether it succeeded.
 *
 * @example
 * const { hash, ok } = await sendTransaction(wallet, { from, to, data, value: 0n });
 */
export async function sendTransaction(
  p: Eip1193,
  tx: { from: Hex; to: string; data: Hex; value: bigint },
  onSent?: (hash: Hex) => void,
): Promise<{ hash: Hex; ok: boolean }> {
  const hash = (await p.request({
    method: "eth_sendTransaction",
    params: [{ from: tx.from, to: tx.to, data: tx.data, value: `0x${tx.value.toString(16)}` }],
  })) as Hex;
  onSent?.(hash);
  for (;;) {
    const r = (await p.request({ method: "eth_getTransactionReceipt", params: [hash] })) as {
      status: Hex;
    } | null;
    if (r) return { hash, ok: r.status === "0x1" };
    await new Promise((res) => setTimeout(res, 1_000));
  }
}
