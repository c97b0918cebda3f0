import { formatEther, type Hex, parseEther } from "viem";
import { bnb, relativeTime } from "../format.ts";
import { type LaunchEventItem, launchEventRow } from "../rows.ts";
import { live, pageData, tickRelativeTimes } from "./live.ts";
import {
  ensureChain,
  errorText,
  provider,
  requestAccount,
  sendTransaction,
  sessionAddress,
  sharedAccount,
  signIn as siwe,
} from "./wallet.ts";

// The launch page's island: an injected wallet (web/client/wallet.ts), Sign-In with Ethereum,
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

const d = pageData<Data>();
const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const say = (text: string) => {
  $("tx-status").textContent = text;
};
let account: Hex | null = null;

const word = (n: bigint) => n.toString(16).padStart(64, "0");
const CALLS = {
  deposit: () => d.selectors.deposit,
  withdraw: (amount: bigint) => `${d.selectors.withdraw}${word(amount)}` as Hex,
  claim: () => d.selectors.claim,
  refund: () => d.selectors.refund,
};

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
    account = await requestAccount(p);
    setConnected();
    await showMyDeposit();
    await showSession();
  } catch (e) {
    say(`Could not connect: ${errorText(e)}`);
  }
}

/** The API's SIWE session for this browser, if any (the cookie is the API's, sent with CORS). */
async function showSession(): Promise<void> {
  const signedIn = await sessionAddress(d.apiUrl);
  if (account && signedIn === account.toLowerCase()) {
    $("wallet-status").textContent = `Signed in as ${account}`;
    $("signin").hidden = true;
  }
}

async function signIn(): Promise<void> {
  const p = provider();
  if (!p || !account) return;
  try {
    await siwe(p, {
      apiUrl: d.apiUrl,
      account,
      chainId: d.chainId,
      statement: "Sign in to the launchpad to create and follow deposit launches.",
    });
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
    if (!(await ensureChain(p, d.chainId)))
      return say(`Switch your wallet to BNB Smart Chain (chain id ${d.chainId}).`);
    say(`${label}: confirm in your wallet…`);
    const { hash, ok } = await sendTransaction(
      p,
      { from: account, to: d.vault, data, value },
      (h) => say(`${label}: sent ${h}, waiting for the block…`),
    );
    say(ok ? `${label}: confirmed (${hash}).` : `${label}: reverted (${hash}).`);
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
  if (await sharedAccount(provider())) await connect();
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
