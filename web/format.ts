// Number and time formatting for people, shared by the server's pages and the browser islands
// (no imports: esbuild bundles this file as is). Amounts arrive as exact strings (wei, decimal
// USD); what is shown is rounded, what a tooltip shows is exact.

const WEI_DECIMALS = 18;

/** An integer string of `decimals` places as a decimal string, exactly ("1500…" -> "1.5"). */
export function unitsToDecimal(units: string, decimals = WEI_DECIMALS): string {
  const neg = units.startsWith("-");
  const digits = (neg ? units.slice(1) : units).replace(/^0+/, "") || "0";
  const padded = digits.padStart(decimals + 1, "0");
  const int = padded.slice(0, padded.length - decimals);
  const frac = padded.slice(padded.length - decimals).replace(/0+$/, "");
  return `${neg ? "-" : ""}${int}${frac ? `.${frac}` : ""}`;
}

/** An integer string of `decimals` places as a float (for display and charts only). */
export function unitsToNumber(units: string, decimals = WEI_DECIMALS): number {
  return Number(unitsToDecimal(units, decimals));
}

const SUFFIXES = [
  [1e12, "T"],
  [1e9, "B"],
  [1e6, "M"],
  [1e3, "K"],
] as const;

/** 1234567 -> "1.23M"; below 1,000 the number with up to `digits` significant digits. */
export function compact(n: number, digits = 3): string {
  if (!Number.isFinite(n)) return "–";
  const abs = Math.abs(n);
  for (const [size, suffix] of SUFFIXES) {
    if (abs >= size) return `${trimZeros((n / size).toFixed(2))}${suffix}`;
  }
  return small(n, digits);
}

/** A number with `digits` significant digits, never in exponent form ("0.00001234"). */
export function small(n: number, digits = 4): string {
  if (n === 0) return "0";
  if (!Number.isFinite(n)) return "–";
  const abs = Math.abs(n);
  if (abs >= 1) return trimZeros(n.toFixed(Math.max(0, digits - 1 - Math.floor(Math.log10(abs)))));
  const zeros = -Math.floor(Math.log10(abs)) - 1;
  return trimZeros(n.toFixed(Math.min(20, zeros + digits)));
}

function trimZeros(s: string): string {
  return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
}

/** Wei as "1.23 BNB" (compact above 1,000). */
export function bnb(wei: string | null | undefined): string {
  if (wei == null) return "–";
  return `${compact(unitsToNumber(wei))} BNB`;
}

const SUBSCRIPT = "₀₁₂₃₄₅₆₇₈₉";

/** A tiny number with its leading zeros counted: 0.000000006592 -> "0.0₈6592". */
export function tiny(n: number, digits = 4): string {
  if (n === 0 || Math.abs(n) >= 1e-4) return small(n, digits);
  const zeros = -Math.floor(Math.log10(Math.abs(n))) - 1;
  const significant = small(n, digits).slice(2 + zeros + (n < 0 ? 1 : 0));
  const count = [...String(zeros)].map((d) => SUBSCRIPT[Number(d)]).join("");
  return `${n < 0 ? "-" : ""}0.0${count}${significant}`;
}

/** A price in BNB wei per whole token as "0.0₈6592 BNB" (the exact figure goes in a tooltip). */
export function priceBnb(wei: string | null | undefined): string {
  if (wei == null) return "–";
  return `${tiny(unitsToNumber(wei))} BNB`;
}

/** A decimal USD string as "$1,234.56", "$1.2M" or "$0.00001234". */
export function usd(decimal: string | null | undefined): string {
  if (decimal == null) return "–";
  const n = Number(decimal);
  if (!Number.isFinite(n)) return "–";
  const abs = Math.abs(n);
  const sign = n < 0 ? "-" : "";
  if (abs >= 1e6) return `${sign}$${compact(abs)}`;
  if (abs >= 1)
    return `${sign}$${abs.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  return `${sign}$${small(abs)}`;
}

/** A token amount (wei of an 18-decimal token) as "1.23M". */
export function tokens(units: string | null | undefined, decimals = WEI_DECIMALS): string {
  if (units == null) return "–";
  return compact(unitsToNumber(units, decimals));
}

/** 12.3456 -> "+12.34%"; null -> "–". */
export function percent(n: number | null | undefined): string {
  if (n == null) return "–";
  return `${n > 0 ? "+" : ""}${n.toFixed(2)}%`;
}

/** Basis points as a percent ("2500" -> "25%"). */
export function bps(n: number): string {
  return `${trimZeros((n / 100).toFixed(2))}%`;
}

/** "just now", "5 s ago", "3 min ago", "2 h ago", "4 d ago" (or "in 3 h" for the future). */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "–";
  const diff = Math.round((now - Date.parse(iso)) / 1000);
  const abs = Math.abs(diff);
  const say = (n: number, unit: string) => (diff >= 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`);
  if (abs < 5) return "just now";
  if (abs < 60) return say(abs, "s");
  if (abs < 3600) return say(Math.floor(abs / 60), "min");
  if (abs < 86400) return say(Math.floor(abs / 3600), "h");
  return say(Math.floor(abs / 86400), "d");
}

/** 0x1234…abcd */
export function shortAddress(address: string | null | undefined): string {
  if (!address) return "–";
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}

/** HTML-escapes text for the string templates the browser islands render. */
export function escapeHtml(s: unknown): string {
  return String(s ?? "").replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );
}
