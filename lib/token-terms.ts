// The tax terms of a four.meme tax token as its create API takes them (fourmeme-docs
// docs/create-guide.md section 3.4): rates in percent. The create API's rules live here so the
// service refuses at start the terms four.meme would refuse at every launch.

/** `feeRate` options of a tax token, percent (four.meme writes basis points on chain). */
export const FEE_RATES = [1, 3, 5, 10] as const;

/** Tax token terms as the create API takes them (`tokenTaxInfo`). */
export type TokenTaxInfo = {
  feeRate: number;
  burnRate: number;
  divideRate: number;
  liquidityRate: number;
  recipientRate: number;
  /** "" with `recipientRate` 0 when unused. */
  recipientAddress: string;
  /** Minimum holding, whole tokens, to share in dividends: d x 10^n, 1 <= d <= 9, n >= 5. */
  minSharing: number;
};

/** The terms without their recipient: the service's configuration (TOKEN_TAX_*). */
export type TokenTerms = Omit<TokenTaxInfo, "recipientAddress">;

/** Default: 3 % on every DEX trade after graduation, all of it to the agent's treasury. */
export const DEFAULT_TOKEN_TERMS: TokenTerms = {
  feeRate: 3,
  burnRate: 0,
  divideRate: 0,
  liquidityRate: 0,
  recipientRate: 100,
  minSharing: 100_000,
};

/** Whether `n` has the form d x 10^k with 1 <= d <= 9 and k >= 5. */
export function isMinSharing(n: number): boolean {
  if (!Number.isSafeInteger(n) || n < 100_000) return false;
  let v = n;
  while (v % 10 === 0) v /= 10;
  return v >= 1 && v <= 9;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Why the create API refuses these tax terms, or null if it takes them: feeRate in
 * {1, 3, 5, 10}, four whole shares summing to 100, minSharing d x 10^n with n >= 5, a
 * recipient address whenever recipientRate > 0.
 */
export function taxInfoProblem(t: Partial<TokenTaxInfo> | undefined | null): string | null {
  if (!t || typeof t !== "object") return "tokenTaxInfo must be an object";
  if (!FEE_RATES.includes(t.feeRate as never)) return "feeRate must be one of 1, 3, 5, 10";
  const shares = [t.burnRate, t.divideRate, t.liquidityRate, t.recipientRate] as number[];
  if (!shares.every((r) => Number.isInteger(r) && r >= 0 && r <= 100))
    return "burnRate, divideRate, liquidityRate and recipientRate must be whole percentages";
  if (shares.reduce((a, r) => a + r, 0) !== 100)
    return "burnRate + divideRate + liquidityRate + recipientRate must equal 100";
  if (!isMinSharing(t.minSharing as number))
    return "minSharing must be d x 10^n with 1 <= d <= 9 and n >= 5";
  const address = t.recipientAddress ?? "";
  if ((t.recipientRate as number) > 0 && !ADDRESS.test(address))
    return "recipientAddress must be an address when recipientRate > 0";
  if (address !== "" && !ADDRESS.test(address))
    return "recipientAddress must be an address or empty";
  return null;
}

/** One line for people: "3 % tax on DEX trades after graduation: 100 % to the treasury". */
export function describeTerms(t: TokenTerms): string {
  const parts = [
    [t.recipientRate, "to the agent's treasury"],
    [t.divideRate, "to holders as dividends"],
    [t.liquidityRate, "to liquidity"],
    [t.burnRate, "burnt"],
  ]
    .filter(([r]) => (r as number) > 0)
    .map(([r, what]) => `${r} % ${what}`);
  return `${t.feeRate} % tax on every DEX buy and sell after graduation: ${parts.join(", ")}`;
}
