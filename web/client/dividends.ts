import type { Hex } from "viem";
import { dividendsFiguresHtml } from "../dividends-panel.ts";
import { bnb, shortAddress } from "../format.ts";
import type {
  DividendClaimed,
  DividendClaimTransaction,
  WalletDividends,
} from "../holder-types.ts";
import { coalesced, live } from "./live.ts";
import {
  ensureChain,
  errorText,
  provider,
  requestAccount,
  sendTransaction,
  sessionAddress,
  sharedAccount,
  signIn,
} from "./wallet.ts";

// A wallet's dividends on its portfolio page: the claim sent from the browser's wallet (any
// wallet may send it; the dividends go to the page's address), the keeper's opt-in for that
// wallet signed in with SIWE, and the figures redrawn when a claim paying it reaches its
// `dividends` WebSocket channel (the keeper's, the wallet's own, anyone's).

export type DividendsPageData = {
  who: string | null;
  apiUrl: string;
  wsUrl: string;
  chainId: number;
};

/**
 * Wires the dividends section of the page, if it has one.
 *
 * @example
 * startDividends(pageData<DividendsPageData>());
 */
export function startDividends(d: DividendsPageData): void {
  const section = document.getElementById("dividends");
  if (!section || !d.who) return;
  const address = d.who.toLowerCase();
  const $ = (id: string) => document.getElementById(id) as HTMLButtonElement;
  const say = (text: string) => {
    $("dividends-status").textContent = text;
  };
  let account: Hex | null = null;
  let session: string | null = null;

  /** Which buttons apply: a claim when something is claimable, the keeper's for the wallet itself. */
  const update = () => {
    const figures = section.querySelector<HTMLElement>("[data-claimable]");
    const claimable = BigInt(figures?.dataset.claimable ?? "0");
    const auto = figures?.dataset.autoClaim === "true";
    const self = session === address;
    $("claim-dividends").disabled = claimable === 0n;
    $("dividends-signin").hidden = self;
    $("auto-claim-on").hidden = !self || auto;
    $("auto-claim-off").hidden = !self || !auto;
  };
  const refresh = coalesced(async () => {
    const res = await fetch(`${d.apiUrl}/v2/users/${address}/dividends`).catch(() => null);
    if (!res?.ok) return;
    const data = ((await res.json()) as { data: WalletDividends }).data;
    $("dividends-figures").innerHTML = dividendsFiguresHtml(data);
    update();
  });
  const wallet = async () => {
    const p = provider();
    if (!p) throw new Error("no wallet in this browser (an EIP-1193 wallet such as MetaMask)");
    account ??= await requestAccount(p);
    return { p, from: account };
  };

  $("claim-dividends").addEventListener("click", async () => {
    try {
      const { p, from } = await wallet();
      if (!(await ensureChain(p, d.chainId)))
        return say(`Switch your wallet to BNB Smart Chain (chain id ${d.chainId}).`);
      const res = await fetch(`${d.apiUrl}/v2/users/${address}/dividends/claim-transaction`);
      if (!res.ok) throw new Error(`the API answered ${res.status}`);
      const c = ((await res.json()) as { data: DividendClaimTransaction }).data;
      if (!c.transaction) return say("Nothing to claim right now.");
      say("Claim: confirm in your wallet…");
      const { hash, ok } = await sendTransaction(
        p,
        { from, to: c.transaction.to, data: c.transaction.data as Hex, value: 0n },
        (h) => say(`Claim: sent ${h}, waiting for the block…`),
      );
      say(ok ? `Claim confirmed (${hash}).` : `Claim reverted (${hash}).`);
    } catch (e) {
      say(`Claim failed: ${errorText(e)}`);
    }
  });

  $("dividends-signin").addEventListener("click", async () => {
    try {
      const { p, from } = await wallet();
      if (from.toLowerCase() !== address)
        return say(`Your wallet is ${from}: switch it to ${address} to sign in as this wallet.`);
      await signIn(p, {
        apiUrl: d.apiUrl,
        account: from,
        chainId: d.chainId,
        statement: "Sign in to the launchpad to manage your dividends.",
      });
      session = await sessionAddress(d.apiUrl);
      update();
      say("Signed in.");
    } catch (e) {
      say(`Sign-in failed: ${errorText(e)}`);
    }
  });

  const autoClaim = (method: "PUT" | "DELETE") => async () => {
    const res = await fetch(`${d.apiUrl}/v2/users/me/dividends/auto-claim`, {
      method,
      credentials: "include",
    }).catch(() => null);
    if (!res?.ok) {
      const body = (await res?.json().catch(() => ({}))) as { message?: string } | undefined;
      return say(`The keeper's setting was not changed: ${body?.message ?? "no answer"}`);
    }
    say(method === "PUT" ? "The keeper now claims for this wallet." : "The keeper stopped.");
    refresh();
  };
  $("auto-claim-on").addEventListener("click", autoClaim("PUT"));
  $("auto-claim-off").addEventListener("click", autoClaim("DELETE"));

  const socket = live(d.wsUrl, (up) => document.body.classList.toggle("offline", !up));
  socket.subscribe("dividends", address, (m) => {
    if (m.type !== "dividendClaimed") return;
    const c = m.data as DividendClaimed;
    const symbol = section.querySelector(`tr[data-token="${CSS.escape(c.token)}"] .ticker`);
    say(
      `${bnb(c.amountBnb)} of ${symbol?.textContent || shortAddress(c.token)} dividends paid to this address (${c.txHash}).`,
    );
    refresh();
  });

  void (async () => {
    [session, account] = await Promise.all([sessionAddress(d.apiUrl), sharedAccount(provider())]);
    update();
  })();
}
