import { z } from "zod";
import type { TokenTaxInfo } from "../../lib/token-terms.ts";

export { type TokenTaxInfo, taxInfoProblem } from "../../lib/token-terms.ts";

// Wire types of four.meme's create API (fourmeme-docs docs/create-guide.md): every answer is
// `{code, msg, data}` with code "0" on success; the client, the stand-in and the service's
// start-up check of its token terms share these types and rules.

/** The category list the create API accepts for `label`. */
export const LABELS = [
  "Meme",
  "AI",
  "Defi",
  "Games",
  "Infra",
  "De-Sci",
  "Social",
  "Depin",
  "Charity",
  "Others",
] as const;
export type Label = (typeof LABELS)[number];

/** A raise preset from `GET /v1/public/config`, copied unchanged into the create body. */
export type RaisedToken = {
  symbol: string;
  nativeSymbol?: string;
  symbolAddress: string;
  totalBAmount: string | number;
  totalAmount: string | number;
  saleRate: string | number;
  status: string;
  [field: string]: unknown;
};

/** The body of `POST /v1/private/token/create`. */
export type TokenCreateBody = {
  name: string;
  shortName: string;
  desc: string;
  /** Must be a URL the create API's own upload returned. */
  imgUrl: string;
  /** Milliseconds. */
  launchTime: number;
  label: Label;
  /** Fixed at 0.0025. */
  lpTradingFee: number;
  webUrl?: string;
  twitterUrl?: string;
  telegramUrl?: string;
  /** Creator's first buy in the raise token, decimal string; "0" for none. */
  preSale: string;
  onlyMPC: boolean;
  feePlan: boolean;
  tokenTaxInfo?: TokenTaxInfo;
  raisedToken: RaisedToken;
};

/** The create answer: both go to `createToken(createArg, signature)` unread and unchanged. */
export type TokenCreateResult = { createArg: `0x${string}`; signature: `0x${string}` };

/** Message a wallet signs to log in (four.meme's text). */
export const loginMessage = (nonce: string) => `You are sign in Meme ${nonce}`;

// The answers the client reads, checked (services/http.ts parseUpstream) before the saga uses
// them: the signed createArg goes on chain as it came.
const Hex = z.string().regex(/^0x([0-9a-fA-F]{2})+$/) as unknown as z.ZodType<`0x${string}`>;

/** four.meme's envelope: `code` "0" (or 0) is success; `data` is checked per call. */
export const MemeEnvelope = z.looseObject({
  code: z.union([z.string(), z.number()]),
  msg: z.string().nullish(),
  data: z.unknown(),
});

const RaisedTokenSchema = z.looseObject({
  symbol: z.string().min(1),
  symbolAddress: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  // Checked, not converted: the preset goes back to four.meme as it came.
  totalBAmount: z.union([z.string(), z.number()]),
  totalAmount: z.union([z.string(), z.number()]),
  saleRate: z.union([z.string(), z.number()]),
  status: z.string(),
}) as unknown as z.ZodType<RaisedToken>;

/** Schemas of the `data` the client reads, per call. */
export const LaunchpadAnswers = {
  /** The public config's data: the raise presets (a list, or an object holding the list). */
  publicConfig: z
    .union([
      z.array(RaisedTokenSchema),
      z.looseObject({ raisedTokens: z.array(RaisedTokenSchema) }).transform((o) => o.raisedTokens),
    ])
    .refine((list) => list.length > 0, "no raise preset"),
  nonce: z.string().min(1),
  accessToken: z.string().min(1),
  imageUrl: z.url(),
  TokenCreateResult: z.looseObject({
    createArg: Hex,
    signature: Hex,
  }) satisfies z.ZodType<TokenCreateResult>,
};
