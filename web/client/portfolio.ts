import { type DividendsPageData, startDividends } from "./dividends.ts";
import { pageData } from "./live.ts";
import { errorText, provider, requestAccount } from "./wallet.ts";

// The portfolio page's island: "Connect wallet" asks the injected wallet for its account and
// opens that account's portfolio; the page's dividends section (web/client/dividends.ts).

const status = document.getElementById("wallet-status");
document.getElementById("connect")?.addEventListener("click", async () => {
  const p = provider();
  if (!p) {
    if (status) status.textContent = "No browser wallet found: type an address below.";
    return;
  }
  try {
    const account = await requestAccount(p);
    window.location.assign(`/portfolio/${account.toLowerCase()}`);
  } catch (error) {
    if (status) status.textContent = `The wallet refused: ${errorText(error)}`;
  }
});
startDividends(pageData<DividendsPageData>());
