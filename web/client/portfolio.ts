// The portfolio page's island: "Connect wallet" asks the injected wallet (EIP-1193:
// window.ethereum) for its account and opens that account's portfolio.

type Eip1193 = { request: (a: { method: string; params?: unknown[] }) => Promise<unknown> };

const status = document.getElementById("wallet-status");
document.getElementById("connect")?.addEventListener("click", async () => {
  const p = (window as unknown as { ethereum?: Eip1193 }).ethereum;
  if (!p) {
    if (status) status.textContent = "No browser wallet found: type an address below.";
    return;
  }
  try {
    const [account] = (await p.request({ method: "eth_requestAccounts" })) as string[];
    if (account) window.location.assign(`/portfolio/${account.toLowerCase()}`);
  } catch (error) {
    if (status) status.textContent = `The wallet refused: ${(error as Error).message}`;
  }
});
