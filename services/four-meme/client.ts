import type { z } from "zod";
import { FormData, parseUpstream, UpstreamError, upstreamJson } from "../http.ts";
import { LaunchpadAnswers as A, MemeEnvelope, type TokenCreateBody } from "./protocol.ts";

export type FourMemeClientParameters = {
  /** four.meme's base host, `https://four.meme/meme-api`, or the stand-in's equivalent. */
  url: string;
  timeoutMs: number;
};

/**
 * Typed client of four.meme's create API (fourmeme-docs docs/create-guide.md): public config,
 * nonce, login with a wallet signature, image upload, token create. Talks to four.meme itself
 * or to the local stand-in (`devnet/stand-ins/four-meme/server.ts`); only `url` differs.
 * Throws `UpstreamError` (service "launchpad"); a `code` other than "0" is kind `rejected`
 * with four.meme's `code` and `msg` in the message.
 *
 * @example
 * const api = createFourMemeClient({ url: "https://four.meme/meme-api", timeoutMs: 10_000 });
 * const [bnb] = await api.publicConfig();
 */
export function createFourMemeClient(p: FourMemeClientParameters) {
  const call = async <S extends z.ZodType>(
    path: string,
    data: S,
    o: { json?: unknown; form?: FormData; token?: string; method?: "GET" | "POST" },
  ): Promise<z.output<S>> => {
    const res = await upstreamJson({
      service: "launchpad",
      url: `${p.url}/v1${path}`,
      method: o.method ?? "POST",
      json: o.json,
      form: o.form,
      headers: o.token ? { "meme-web-access": o.token } : {},
      timeoutMs: p.timeoutMs,
      schema: MemeEnvelope,
    });
    if (String(res.code) !== "0") {
      const msg = res.msg ?? "no message";
      throw new UpstreamError(
        "launchpad",
        "rejected",
        `${path} refused: ${msg} (code ${res.code})`,
        {
          details: msg,
        },
      );
    }
    return parseUpstream("launchpad", data, res.data, `${path} data`);
  };
  return {
    /** The raise presets; the create body carries one of them unchanged as `raisedToken`. */
    publicConfig: () => call("/public/config", A.publicConfig, { method: "GET" }),
    nonce: (address: string) =>
      call("/private/user/nonce/generate", A.nonce, {
        json: { accountAddress: address, verifyType: "LOGIN", networkCode: "BSC" },
      }),
    /** Returns the access token sent as `meme-web-access` from then on. */
    login: (address: string, signature: string) =>
      call("/private/user/login/dex", A.accessToken, {
        json: {
          region: "WEB",
          langType: "EN",
          loginIp: "",
          inviteCode: "",
          verifyInfo: { address, networkCode: "BSC", signature, verifyType: "LOGIN" },
          walletName: "MetaMask",
        },
      }),
    /** Uploads an image (multipart `file`); returns its hosted URL, the only valid `imgUrl`. */
    upload: (token: string, image: Uint8Array, filename: string, type: string) => {
      const form = new FormData();
      form.append("file", new Blob([image], { type }), filename);
      return call("/private/token/upload", A.imageUrl, { form, token });
    },
    /** The signed `{createArg, signature}` for `TokenManager2.createToken`, opaque to us. */
    create: (token: string, body: TokenCreateBody) =>
      call("/private/token/create", A.TokenCreateResult, { json: body, token }),
  };
}

export type FourMemeClient = ReturnType<typeof createFourMemeClient>;
