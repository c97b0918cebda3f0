import { publicHostProblem } from "../../http/public-address.ts";

/**
 * Why a webhook URL may not be subscribed, or undefined when it may: https (unless its
 * origin is trusted, local mode only), no credentials, a host that is or resolves to a public
 * address. The dispatcher checks the address again at every delivery.
 *
 * @example
 * await webhookUrlProblem("http://example.com/hook", []); // "the URL must be https"
 */
export async function webhookUrlProblem(
  raw: string,
  trustedOrigins: readonly string[],
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "not a URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "the URL must be https";
  if (url.username || url.password) return "the URL must not carry credentials";
  if (trustedOrigins.includes(url.origin)) return undefined;
  if (url.protocol !== "https:") return "the URL must be https";
  return publicHostProblem(url);
}
