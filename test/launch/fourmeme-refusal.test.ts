import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classify } from "../../jobs/launch/errors.ts";
import { createFourMemeClient } from "../../services/four-meme/client.ts";
import { UpstreamError } from "../../services/http.ts";

// A refusal from four.meme is an HTTP 200 whose code is not "0": the launch fails with
// LAUNCHPAD_ERROR and four.meme's own message, never as a success or an outage.
let server: Server;
let url: string;
let seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ code: "40001", msg: "label must be one of Meme, AI", data: null }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/meme-api`;
});
afterAll(() => server.close());

describe("four.meme refusing", () => {
  it("a code other than 0 is a rejection carrying the code and msg, and fails the launch with LAUNCHPAD_ERROR", async () => {
    seen = [];
    const api = createFourMemeClient({ url, timeoutMs: 2_000 });
    const error = await api.create("token", {} as never).catch((e: unknown) => e);
    expect(seen).toEqual(["POST /meme-api/v1/private/token/create"]);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: "rejected", service: "launchpad" });
    const failed = classify(error, "launchpad");
    expect(failed.code).toBe("LAUNCHPAD_ERROR");
    expect(failed.message).toContain("label must be one of Meme, AI");
    expect(failed.message).toContain("40001");
  });

  it("reads the public config with a GET under the base path", async () => {
    seen = [];
    const api = createFourMemeClient({ url, timeoutMs: 2_000 });
    await expect(api.publicConfig()).rejects.toThrow(/code 40001/);
    expect(seen).toEqual(["GET /meme-api/v1/public/config"]);
  });
});
