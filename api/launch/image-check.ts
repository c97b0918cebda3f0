import { lookup } from "node:dns";
import { BlockList, isIP } from "node:net";
import { Agent, request } from "undici";
import { sniffImage } from "../../services/launchpad-api/sample-image.ts";

/** Limits of the launch image check, in one place. */
export const IMAGE_LIMITS = {
  maxBytes: 5 * 1024 * 1024,
  connectTimeoutMs: 3_000,
  headersTimeoutMs: 5_000,
  bodyTimeoutMs: 10_000,
} as const;

/** Addresses a server-side fetch must never reach (private, loopback, link-local, reserved). */
const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  FORBIDDEN.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["::ffff:0:0", 96],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  FORBIDDEN.addSubnet(net, bits, "ipv6");

/** True for an address a fetch may connect to. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  return !FORBIDDEN.check(ip, family === 4 ? "ipv4" : "ipv6");
}

/**
 * Resolves the host ourselves and hands the socket only a checked address: the connection is
 * pinned to the IP we vetted, so a DNS answer that changes between check and connect (DNS
 * rebinding) cannot reach an internal address.
 */
const pinnedAgent = new Agent({
  connect: {
    timeout: IMAGE_LIMITS.connectTimeoutMs,
    lookup: (hostname, options, callback) => {
      lookup(hostname, { all: true }, (error, addresses) => {
        if (error) return callback(error, "", 4);
        const ok = addresses.find((a) => isPublicAddress(a.address));
        if (!ok) {
          return callback(
            Object.assign(new Error(`${hostname} resolves only to private addresses`), {
              code: "EPRIVATE",
            }),
            "",
            4,
          );
        }
        void options;
        callback(null, ok.address, ok.family);
      });
    },
  },
});
const plainAgent = new Agent({ connect: { timeout: IMAGE_LIMITS.connectTimeoutMs } });

export type CheckImageParameters = {
  url: string;
  /** Origins exempt from the https and public-address rules (local stand-ins; never in production). */
  trustedOrigins: string[];
};
export type CheckImageReturnType = { type: "png" | "jpeg" | "webp"; bytes: Uint8Array };

/** Why an image URL was refused; `code` goes into the launch error body. */
export class ImageCheckError extends Error {
  override name = "ImageCheckError";
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * Fetches a launch image the safe way: https only, literal and resolved addresses must be
 * public (connection pinned to the checked IP), no redirects, status 200, at most 5 MB read
 * within the timeouts, and the bytes must sniff as png, jpeg or webp whatever the headers say.
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
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      method: "GET",
      dispatcher: trusted ? plainAgent : pinnedAgent,
      headersTimeout: IMAGE_LIMITS.headersTimeoutMs,
      bodyTimeout: IMAGE_LIMITS.bodyTimeoutMs,
      headers: { accept: "image/png, image/jpeg, image/webp" },
    }); // undici's request never follows redirects: a 3xx is refused as not-200
  } catch (error) {
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
