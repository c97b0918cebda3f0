import type { z } from "zod";
import { FormData, parseUpstream, UpstreamError, upstreamJson } from "../http.ts";
import { LaunchpadAnswers as A, MemeEnvelope, type TokenCreateBody } from "./protocol.ts";

export type LaunchpadApiClientParameters = { url: string; timeoutMs: number };

/**
 * Typed client of the four.meme-compatible launchpad API: nonce, login with a wallet
 * signature, image upload, token create. Talks to four.meme itself or to the local stand-in
 * (`services/launchpad-api/stand-in/server.ts`); only `url` differs. Throws `UpstreamError`
 * (service "launchpad"), also for a `code` other than 0 in a 200 answer.
 *
 * @example
 * const api = createLaunchpadApiClient({ url, timeoutMs: 10_000 });
 * const nonce = await api.nonce(address);
 */
export function createLaunchpadApiClient(p: LaunchpadApiClientParameters) {
  const call = async <S extends z.ZodType>(
    path: string,
    data: S,
    o: { json?: unknown; form?: FormData; token?: string },
  ): Promise<z.output<S>> => {
    const res = await upstreamJson({
      service: "launchpad",
      url: `${p.url}${path}`,
      method: "POST",
      json: o.json,
      form: o.form,
      headers: o.token ? { "meme-web-access": o.token } : {},
      timeoutMs: p.timeoutMs,
      schema: MemeEnvelope,
    });
    if (String(res.code) !== "0") {
      throw new UpstreamError("launchpad", "rejected", `${path} answered code ${res.code}`, {
        details: res.msg ?? undefined,
      });
    }
    return parseUpstream("launchpad", data, res.data, `${path} data`);
  };
  return {
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
    /** Uploads an image (multipart `file`); returns its hosted URL. */
    upload: (token: string, image: Uint8Array, filename: string, type: string) => {
      const form = new FormData();
      form.append("file", new Blob([image], { type }), filename);
      return call("/private/token/upload", A.imageUrl, { form, token });
    },
    create: (token: string, body: TokenCreateBody) =>
      call("/private/token/create", A.TokenCreateResult, { json: body, token }),
  };
}

export type LaunchpadApiClient = ReturnType<typeof createLaunchpadApiClient>;
