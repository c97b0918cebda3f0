import type { Account, Hex } from "viem";
import { createSiweMessage } from "viem/siwe";
import { expect } from "vitest";
import { responseChecker } from "../../api/testing/openapi.ts";
import { nextIp } from "../helpers/launch.ts";

/** The web app's origin in test stacks of their own (WEB_URL's default). */
export const WEB = "http://127.0.0.1:3000";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked against the OpenAPI
export type Body = Record<string, any>;

/** A browser-less client of one stack: JSON over fetch, a cookie jar of one cookie. */
export function client(apiUrl: string) {
  const call = async (
    method: string,
    path: string,
    o: { body?: unknown; cookie?: string; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      redirect: "manual",
      headers: {
        "x-forwarded-for": nextIp(),
        ...(o.body === undefined ? {} : { "content-type": "application/json" }),
        ...(o.cookie ? { cookie: o.cookie } : {}),
        ...o.headers,
      },
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    });
    const text = await res.text();
    let body: Body = {};
    try {
      body = JSON.parse(text) as Body;
    } catch {
      body = { text };
    }
    return { res, status: res.status, body };
  };
  return call;
}

/** Signs `account` in with SIWE and returns the `siwe_session=…` cookie. */
export async function signIn(
  apiUrl: string,
  account: Account & { signMessage: NonNullable<Account["signMessage"]> },
  o: { address?: Hex; sign?: (message: string) => Promise<Hex>; web?: string } = {},
) {
  const web = o.web ?? WEB;
  const call = client(apiUrl);
  const address = o.address ?? account.address;
  const n = await call("GET", `/auth/nonce?address=${address}`);
  expect(n.status).toBe(200);
  const message = createSiweMessage({
    domain: new URL(web).host,
    address,
    uri: web,
    version: "1",
    chainId: 56,
    nonce: n.body.data.nonce,
    issuedAt: new Date(),
  });
  const signature = o.sign ? await o.sign(message) : await account.signMessage({ message });
  const r = await call("POST", "/auth/verify", { body: { message, signature } });
  const cookie = /siwe_session=[^;]+/.exec(r.res.headers.get("set-cookie") ?? "")?.[0];
  return { ...r, cookie: cookie ?? "" };
}

/** A checker of responses against the stack's own /openapi.json. */
export async function openApiChecker(apiUrl: string) {
  const doc = await (await fetch(`${apiUrl}/openapi.json`)).json();
  return responseChecker(doc as never);
}
