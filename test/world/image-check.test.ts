import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { samplePng } from "../../devnet/stand-ins/four-meme/sample-image.ts";
import { checkImage, ImageCheckError } from "../../lib/image/check.ts";
import { IMAGE_LIMITS } from "../../lib/limits.ts";
import { servePrivate, serveWorld, type WorldServer } from "../helpers/world/serve.ts";
import { WORLD_PRIVATE } from "../helpers/world/world.ts";

// Launch images as production fetches them: by name, over TLS, from public addresses of one
// family or the other, with no trusted origin; and every way of aiming the fetch inside refused
// although a server answers there with a valid certificate.

const png = samplePng(64);
const servers: WorldServer[] = [];
const serve = async (s: Promise<WorldServer>) => {
  const server = await s;
  servers.push(server);
  return server;
};
const image = () => (_req: unknown, res: import("node:http").ServerResponse) =>
  res.writeHead(200, { "content-type": "image/png" }).end(png);

async function refusal(url: string): Promise<string> {
  const error = await checkImage({ url, trustedOrigins: [] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, url).toBeInstanceOf(ImageCheckError);
  return (error as ImageCheckError).code;
}

afterAll(() => Promise.all(servers.map((s) => s.close())));

describe("launch images in the public world", () => {
  it("fetches an image by name from an IPv4-only host and from an IPv6-only host", async () => {
    for (const host of ["images.example.net", "images6.example.net"] as const) {
      const server = await serve(serveWorld(host, image()));
      const got = await checkImage({ url: `${server.origin}/agent.png`, trustedOrigins: [] });
      expect(got.type, host).toBe("png");
      expect(got.bytes.length).toBe(png.length);
    }
  });

  describe("private targets, each served", () => {
    let port: number;
    beforeAll(async () => {
      // One port on every private address: whatever the URL names, a server would answer.
      const first = await serve(servePrivate("127.0.0.1", image()));
      port = first.port;
      for (const a of ["::1", WORLD_PRIVATE.tenNet, WORLD_PRIVATE.metadata, WORLD_PRIVATE.nat64])
        await serve(servePrivate(a, image()));
    });

    it("refuses each by address and by name", async () => {
      const urls = [
        "https://127.0.0.1:PORT/a.png",
        "https://[::1]:PORT/a.png",
        "https://localhost:PORT/a.png",
        "https://10.44.0.1:PORT/a.png",
        "https://internal.example.com:PORT/a.png",
        "https://169.254.169.254:PORT/a.png",
        "https://metadata.example.com:PORT/a.png",
        "https://[::ffff:10.44.0.1]:PORT/a.png",
        "https://[::ffff:127.0.0.1]:PORT/a.png",
        "https://[64:ff9b::a2c:1]:PORT/a.png",
      ];
      for (const url of urls.map((u) => u.replace("PORT", String(port))))
        expect(await refusal(url), url).toBe("IMAGE_URL_PRIVATE");
    });
  });

  it("gives up on a server that drips its answer within the pauses, at the total deadline", async () => {
    const drip = await serve(
      serveWorld("images.example.net", (_req, res) => {
        res.writeHead(200, { "content-type": "image/png" });
        let i = 0;
        const t = setInterval(() => {
          if (res.destroyed || i >= png.length) return clearInterval(t);
          res.write(png.subarray(i, ++i));
        }, 1_000);
        res.on("close", () => clearInterval(t));
      }),
    );
    const error = await checkImage({ url: `${drip.origin}/slow.png`, trustedOrigins: [] }).catch(
      (e: ImageCheckError) => e,
    );
    expect((error as ImageCheckError).code).toBe("IMAGE_UNREACHABLE");
    // The deadline's own words: the drip (a byte a second, 64 bytes) never paused long enough
    // for the body timeout.
    expect((error as Error).message).toContain(`within ${IMAGE_LIMITS.totalTimeoutMs / 1000} s`);
  });
});
