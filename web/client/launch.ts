import { formatEther, getAddress, type Hex, parseEther } from "viem";
import { createSiweMessage } from "viem/siwe";
import { bnb, relativeTime } from "../format.ts";
import { type LaunchEventItem, launchEventRow } from "../rows.ts";
import { live, pageData, tickRelativeTimes } from "./live.ts";

// The launch page's island: an injected wallet (EIP-1193: window.ethereum), Sign-In with
// Ethereum against the API (its session cookie; the API allows this origin with credentials),
// the vault's buttons sending transactions from that wallet, and the live `launch` channel.

type Data = {
  apiUrl: string;
  wsUrl: string;
  launchId: string;
  vault: string;
  status: "open" | "closed" | "launched" | "refund";
  chainId: number;
  selectors: Record<"deposit" | "withdraw" | "claim" | "refund" | "deposits", Hex>;
};
type Eip1193 = { request: (a: { method: string; params?: unknown[] }) => Promise<unknown> };

const d = pageData<Data>();
const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const say = (text: string) => {
  $("tx-status").textContent = text;
};
const provider = () => (window as unknown as { ethereum?: Eip1193 }).ethereum;
let account: Hex | null = null;

const word = (n: bigint) => n.toString(16).padStart(64, "0");
const CALLS = {
  deposit: () => d.selectors.deposit,
  withdraw: (amount: bigint) => `${d.selectors.withdraw}${word(amount)}` as Hex,
  claim: () => d.selectors.claim,
  refund: () => d.selectors.refund,
};

function errorText(e: unknown): string {
  const m = (e as { message?: string })?.message ?? String(e);
  return m.length > 200 ? `${m.slice(0, 200)}…` : m;
}

async function ensureChain(p: Eip1193): Promise<boolean> {
  const id = Number(await p.request({ method: "eth_chainId" }));
  if (id === d.chainId) return true;
  try {
    await p.request({
      method: "wallet_switchEthereumChain",
      params: [{ chainId: `0x${d.chainId.toString(16)}` }],
    });
    return true;
  } catch {
    say(`Switch your wallet to BNB Smart Chain (chain id ${d.chainId}).`);
    return false;
  }
}

/** The wallet's principal in this vault, read from the chain through the wallet. */
async function showMyDeposit(): Promise<void> {
  const p = provider();
  if (!p || !account) return;
  const data = `${d.selectors.deposits}${account.slice(2).toLowerCase().padStart(64, "0")}`;
  const out = (await p.request({
    method: "eth_call",
    params: [{ to: d.vault, data }, "latest"],
  })) as Hex;
  const wei = BigInt(out === "0x" ? 0 : out);
  $("my-deposit").hidden = false;
  const el = $("my-deposit-amount");
  el.textContent = bnb(wei.toString());
  el.title = `${formatEther(wei)} BNB (${wei} wei)`;
}

function setConnected(): void {
  $("wallet-status").textContent = `Connected: ${account}`;
  $("connect").hidden = true;
  $("signin").hidden = false;
  for (const b of document.querySelectorAll<HTMLButtonElement>(
    "#wallet button:not(#connect):not(#signin)",
  ))
    b.disabled = false;
}

async function connect(): Promise<void> {
  const p = provider();
  if (!p) {
    say("No wallet found in this browser (an EIP-1193 wallet such as MetaMask or Rabby).");
    return;
  }
  try {
    const accounts = (await p.request({ method: "eth_requestAccounts" })) as string[];
    if (!accounts[0]) throw new Error("the wallet shared no account");
    account = getAddress(accounts[0]);
    setConnected();
    await showMyDeposit();
    await showSession();
  } catch (e) {
    say(`Could not connect: ${errorText(e)}`);
  }
}

/** The API's SIWE session for this browser, if any (the cookie is the API's, sent with CORS). */
async function showSession(): Promise<void> {
  const res = await fetch(`${d.apiUrl}/auth/session`, { credentials: "include" }).catch(() => null);
  if (!res?.ok) return;
  const s = ((await res.json()) as { data: { address: string } }).data;
  if (account && s.address.toLowerCase() === account.toLowerCase()) {
    $("wallet-status").textContent = `Signed in as ${account}`;
    $("signin").hidden = true;
  }
}

async function signIn(): Promise<void> {
  const p = provider();
  if (!p || !account) return;
  try {
    const n = await fetch(`${d.apiUrl}/auth/nonce?address=${account}`, { credentials: "include" });
    if (!n.ok) throw new Error(`nonce: the API answered ${n.status}`);
    const { nonce } = ((await n.json()) as { data: { nonce: string } }).data;
    const message = createSiweMessage({
      domain: location.host,
      address: account,
      statement: "Sign in to the launchpad to create and follow deposit launches.",
      uri: location.origin,
      version: "1",
      chainId: d.chainId,
      nonce,
      issuedAt: new Date(),
    });
    const signature = await p.request({ method: "personal_sign", params: [message, account] });
    const v = await fetch(`${d.apiUrl}/auth/verify`, {
      method: "POST",
      credentials: "include",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message, signature }),
    });
    if (!v.ok) {
      const body = (await v.json().catch(() => ({}))) as { message?: string };
      throw new Error(body.message ?? `the API answered ${v.status}`);
    }
    await showSession();
    say("Signed in.");
  } catch (e) {
    say(`Sign-in failed: ${errorText(e)}`);
  }
}

/** Sends one vault call from the wallet and waits for its receipt. */
async function send(label: string, data: Hex, value = 0n): Promise<void> {
  const p = provider();
  if (!p || !account) return say("Connect a wallet first.");
  try {
    if (!(await ensureChain(p))) return;
    say(`${label}: confirm in your wallet…`);
    const hash = (await p.request({
      method: "eth_sendTransaction",
      params: [{ from: account, to: d.vault, data, value: `0x${value.toString(16)}` }],
    })) as Hex;
    say(`${label}: sent ${hash}, waiting for the block…`);
    for (;;) {
      const r = (await p.request({ method: "eth_getTransactionReceipt", params: [hash] })) as {
        status: Hex;
      } | null;
      if (r) {
        say(
          r.status === "0x1" ? `${label}: confirmed (${hash}).` : `${label}: reverted (${hash}).`,
        );
        break;
      }
      await new Promise((res) => setTimeout(res, 1_000));
    }
    await showMyDeposit();
  } catch (e) {
    say(`${label} failed: ${errorText(e)}`);
  }
}

function amountOf(input: HTMLInputElement): bigint | null {
  try {
    const v = parseEther(input.value.trim());
    return v > 0n ? v : null;
  } catch {
    return null;
  }
}

/** A wallet that already shared its account with this site reconnects without a prompt. */
async function reconnect(): Promise<void> {
  const accounts = (await provider()
    ?.request({ method: "eth_accounts" })
    .catch(() => [])) as string[] | undefined;
  if (accounts?.[0]) await connect();
}

$("connect").addEventListener("click", () => void connect());
void reconnect();
$("signin").addEventListener("click", () => void signIn());
$("deposit-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const v = amountOf($<HTMLInputElement>("deposit-amount"));
  if (v === null) return say("Enter an amount of BNB, like 0.1.");
  void send("Deposit", CALLS.deposit(), v);
});
$("withdraw-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const v = amountOf($<HTMLInputElement>("withdraw-amount"));
  if (v === null) return say("Enter an amount of BNB, like 0.1.");
  void send("Withdraw", CALLS.withdraw(v));
});
$("claim").addEventListener("click", () => void send("Claim", CALLS.claim()));
$("refund").addEventListener("click", () => void send("Refund", CALLS.refund()));

// Live vault events: the list, the total and the depositor count move without a reload.
const events = $("launch-events");
live(d.wsUrl).subscribe("launch", d.launchId, (m) => {
  if (m.type === "subscribed" || m.type === "error" || m.type === "removed") return;
  const v = { ...(m.data as Omit<LaunchEventItem, "type">), type: m.type } as LaunchEventItem;
  const key = `${v.txHash}:${v.logIndex}`;
  if (events.querySelector(`[data-key="${CSS.escape(key)}"]`)) return;
  const tpl = document.createElement("template");
  tpl.innerHTML = launchEventRow(v).trim();
  const li = tpl.content.firstElementChild as HTMLElement;
  li.classList.add("fresh");
  events.prepend(li);
  $("events-empty")?.remove();
  if (v.totalDeposited) {
    const total = $("total-deposited");
    total.textContent = bnb(v.totalDeposited);
    total.title = `${v.totalDeposited} wei`;
  }
  if (account && v.account?.toLowerCase() === account.toLowerCase()) void showMyDeposit();
});

tickRelativeTimes((iso) => relativeTime(iso));
