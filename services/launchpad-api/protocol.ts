/** Wire types of the four.meme-compatible launchpad API (responses are `{code, msg, data}`). */
export type MemeResponse<T> = { code: string | number; msg?: string; data: T };

export type TokenCreateBody = {
  name: string;
  shortName: string;
  desc: string;
  imgUrl: string;
  launchTime: number;
  label: string;
  preSale: string;
  webUrl?: string;
  twitterUrl?: string;
  /** Tax token terms (four.meme's tax-token form): rates in basis points. */
  tokenTaxInfo: {
    buyTaxBps: number;
    sellTaxBps: number;
    recipientAddress: string;
    /** Share of each tax paid to the recipient, basis points. */
    recipientRate: number;
  };
};

export type TokenCreateResult = {
  createArg: `0x${string}`;
  signature: `0x${string}`;
  /** Where createToken will deploy the token (CREATE2, known before creation). */
  tokenAddress: `0x${string}`;
  requestId: string;
};

/** Message a wallet signs to log in (four.meme's text). */
export const loginMessage = (nonce: string) => `You are sign in Meme ${nonce}`;
