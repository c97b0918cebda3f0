import { z } from "zod";

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

// The answers the client reads, checked (services/http.ts parseUpstream) before the saga uses
// them: the signed createArg goes on chain, the token address becomes the agent's.
const Hex = z.string().regex(/^0x[0-9a-fA-F]*$/) as unknown as z.ZodType<`0x${string}`>;

/** four.meme's envelope: `code` 0 (or "0") is success; `data` is checked per call. */
export const MemeEnvelope = z.looseObject({
  code: z.union([z.string(), z.number()]),
  msg: z.string().nullish(),
  data: z.unknown(),
});

/** Schemas of the `data` the client reads, per call. */
export const LaunchpadAnswers = {
  nonce: z.string().min(1),
  accessToken: z.string().min(1),
  imageUrl: z.url(),
  TokenCreateResult: z.looseObject({
    createArg: Hex,
    signature: Hex,
    tokenAddress: z.string().regex(/^0x[0-9a-fA-F]{40}$/) as unknown as z.ZodType<`0x${string}`>,
    requestId: z.string().min(1),
  }) satisfies z.ZodType<TokenCreateResult>,
};
