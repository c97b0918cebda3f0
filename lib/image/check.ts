import { isIP } from "node:net";
import { Agent, request } from "undici";
import { LaunchpadError } from "../errors.ts";
import { isPublicAddress, publicOnlyLookup } from "../http/public-address.ts";
import { IMAGE_LIMITS } from "../limits.ts";
import { sniffImage } from "./sniff.ts";

/**
 * Resolves the host ourselves and hands the socket only a checked address: the connection is
 * pinned to the IP we vetted, so a DNS answer that changes between check and connect (DNS
 * rebinding) cannot reach an internal address.
 */
const pinnedAgent = new Agent({
  connect: { timeout: IMAGE_LIMITS.connectTimeoutMs, lookup: publicOnlyLookup },
});
const plainAgent = new Agent({ connect: { timeout: IMAGE_LIMITS.connectTimeoutMs } });

export type CheckImageParameters = {
  url: string;
  /** Origins exempt from the https and public-address rules (local stand-ins; never in production). */
  trustedOrigins: string[];
};
export type CheckImageReturnType = { type: "png" | "jpeg" | "webp"; bytes: Uint8Array };

/** Why an image URL was refused; `code` goes into the launch error body. */
export class ImageCheckError extends LaunchpadError {
  override name = "ImageCheckError";
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, { message, cause: options?.cause });
  }
}

/**
 * Fetches a launch image the safe way: https only, literal and resolved addresses must be
 * public (connection pinned to the checked IP), no redirects, status 200, at most 5 MB read
 * within 10 s in all, and the bytes must sniff as png, jpeg or webp whatever the headers say.
 *
 * @example
 * const { type } = await checkImage({ url: body.imageUrl, trustedOrigins: [] });
 */
export async function checkImage(p: CheckImageParameters): Promise<CheckImageReturnType> {
  let url: URL;
  try {
    url = new URL(p.url);
  } catch {
    throw new ImageCheckError("IMAGE_URL_INVALID", "imageUrl is not a URL");
  }
  const trusted = p.trustedOrigins.includes(url.origin);
  if (!trusted) {
    if (url.protocol !== "https:")
      throw new ImageCheckError("IMAGE_URL_NOT_HTTPS", "imageUrl must be an https URL");
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) && !isPublicAddress(host)) {
      throw new ImageCheckError(
        "IMAGE_URL_PRIVATE",
        "imageUrl points at a private, loopback or link-local address",
      );
    }
    if (url.username || url.password)
      throw new ImageCheckError("IMAGE_URL_INVALID", "imageUrl must not carry credentials");
  }
  const deadline = AbortSignal.timeout(IMAGE_LIMITS.totalTimeoutMs);
  const late = () =>
    new ImageCheckError(
      "IMAGE_UNREACHABLE",
      `imageUrl was not fetched whole within ${IMAGE_LIMITS.totalTimeoutMs / 1000} s`,
    );
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      method: "GET",
      signal: deadline,
      dispatcher: trusted ? plainAgent : pinnedAgent,
      headersTimeout: IMAGE_LIMITS.headersTimeoutMs,
      bodyTimeout: IMAGE_LIMITS.bodyTimeoutMs,
      headers: { accept: "image/png, image/jpeg, image/webp" },
    }); // undici's request never follows redirects: a 3xx is refused as not-200
  } catch (error) {
    if (deadline.aborted) throw late();
    const code = (error as { code?: string }).code;
    if (
      code === "EPRIVATE" ||
      (error as { cause?: { code?: string } }).cause?.code === "EPRIVATE"
    ) {
      throw new ImageCheckError(
        "IMAGE_URL_PRIVATE",
        "imageUrl resolves to a private, loopback or link-local address",
        { cause: error },
      );
    }
    throw new ImageCheckError(
      "IMAGE_UNREACHABLE",
      `imageUrl could not be fetched (${code ?? (error as Error).message})`,
      { cause: error },
    );
  }
  if (res.statusCode !== 200) {
    await res.body.dump().catch(() => {});
    throw new ImageCheckError("IMAGE_NOT_200", `imageUrl answered ${res.statusCode}, not 200`);
  }
  const declared = Number(res.headers["content-length"] ?? 0);
  if (declared > IMAGE_LIMITS.maxBytes) {
    await res.body.dump().catch(() => {});
    throw new ImageCheckError(
      "IMAGE_TOO_LARGE",
      `image is larger than ${IMAGE_LIMITS.maxBytes} bytes`,
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > IMAGE_LIMITS.maxBytes) {
        res.body.destroy();
        throw new ImageCheckError(
          "IMAGE_TOO_LARGE",
          `image is larger than ${IMAGE_LIMITS.maxBytes} bytes`,
        );
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof ImageCheckError) throw error;
    if (deadline.aborted) throw late();
    throw new ImageCheckError("IMAGE_UNREACHABLE", "image download failed or timed out", {
      cause: error,
    });
  }
  const bytes = new Uint8Array(Buffer.concat(chunks));
  const type = sniffImage(bytes);
  if (!type)
    throw new ImageCheckError("IMAGE_NOT_IMAGE", "imageUrl is not a png, jpeg or webp image");
  return { type, bytes };
}
