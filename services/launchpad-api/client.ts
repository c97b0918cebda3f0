import { FormData, UpstreamError, upstreamJson } from "../http.ts";
import type { MemeResponse, TokenCreateBody, TokenCreateResult } from "./protocol.ts";

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
  const call = async <T>(path: string, o: { json?: unknown; form?: FormData; token?: string }) => {
    const res = await upstreamJson<MemeResponse<T>>({
      service: "launchpad",
      url: `${p.url}${path}`,
      method: "POST",
      json: o.json,
      form: o.form,
      headers: o.token ? { "meme-web-access": o.token } : {},
      timeoutMs: p.timeoutMs,
    });
    if (String(res.code) !== "0") {
      throw new UpstreamError("launchpad", "rejected", `${path} answered code ${res.code}`, {
        details: res.msg,
      });
    }
    return res.data;
  };
  return {
    nonce: (address: string) =>
      call<string>("/private/user/nonce/generate", {
        json: { accountAddress: address, verifyType: "LOGIN", networkCode: "BSC" },
      }),
    /** Returns the access token sent as `meme-web-access` from then on. */
    login: (address: string, signature: string) =>
      call<string>("/private/user/login/dex", {
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
      return call<string>("/private/token/upload", { form, token });
    },
    create: (token: string, body: TokenCreateBody) =>
      call<TokenCreateResult>("/private/token/create", { json: body, token }),
  };
}

export type LaunchpadApiClient = ReturnType<typeof createLaunchpadApiClient>;
