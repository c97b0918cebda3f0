import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { type Address, type LocalAccount, verifyMessage } from "viem";
import { sniffImage } from "../../../lib/image/sniff.ts";
import type { Logger } from "../../../lib/logger.ts";
import { loginMessage, type TokenCreateBody } from "../../../services/four-meme/protocol.ts";
import { STAND_IN_LIMITS } from "../../limits.ts";
import type { DeploymentRecord } from "../../record.ts";
import { createProblem, devnetRaisedTokens, signCreate } from "./create.ts";
import { SAMPLE_PATHS, samplePng } from "./sample-image.ts";

export type LaunchpadStandInParameters = {
  record: DeploymentRecord;
  /** The key TokenManager2 trusts for createToken args (devnet account 2). */
  signer: LocalAccount;
  /** Public origin of this server (uploaded images are linked under it). */
  origin: string;
  /** Directory for uploaded images. */
  dir: string;
  log: Logger;
};

/** four.meme's base path: the API is `{origin}/meme-api/v1/...`. */
export const BASE_PATH = "/meme-api";

const IMAGE_TYPES = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" } as const;

// Business errors answer HTTP 200 with a code other than "0" and the reason in `msg`, as
// four.meme does; the codes are this stand-in's own (four.meme publishes no list).
const CODES = { badRequest: "400", unauthorized: "401", notFound: "404", internal: "500" } as const;

/**
 * The local stand-in of four.meme's create API (fourmeme-docs docs/create-guide.md) under
 * `/meme-api/v1`: public config, wallet login (nonce, `You are sign in Meme {nonce}`, access
 * token in `meme-web-access`), multipart upload, and create answering only `{createArg,
 * signature}`, signed with the devnet launchpad signer TokenManager2 verifies. Also hosts the
 * sample images local mode launches with.
 */
export function createFourMemeApp(p: LaunchpadStandInParameters) {
  const nonces = new Map<string, string>();
  const sessions = new Map<string, Address>();
  const raisedTokens = devnetRaisedTokens(p.record);
  const sample = samplePng();
  mkdirSync(p.dir, { recursive: true });
  const ok = <T>(c: Context, data: T) => c.json({ code: "0", msg: "success", data });
  const fail = (c: Context, code: keyof typeof CODES, msg: string) =>
    c.json({ code: CODES[code], msg, data: null });
  const session = (c: Context) => {
    const token = c.req.header("meme-web-access");
    return token ? sessions.get(token) : undefined;
  };
  const json = async <T>(c: Context): Promise<Partial<T> | null> =>
    c.req.json<Partial<T>>().catch(() => null);
  const imagePrefix = `${p.origin}/market/`;
  const uploaded = (url: string) =>
    url.startsWith(imagePrefix) &&
    /^[0-9a-f]{64}\.(png|jpeg|webp)$/.test(url.slice(imagePrefix.length)) &&
    existsSync(join(p.dir, url.slice(imagePrefix.length)));

  const app = new Hono();
  app.get("/health", (c) => c.json({ ok: true, service: "four-meme-stand-in" }));
  app.get(SAMPLE_PATHS.image, (c) =>
    c.body(new Uint8Array(sample), 200, { "content-type": "image/png" }),
  );
  app.get(SAMPLE_PATHS.notImage, (c) => c.text("this is not an image\n"));
  app.get("/market/:file{[0-9a-f]{64}\\.(png|jpeg|webp)}", (c) => {
    const file = c.req.param("file");
    const ext = file.split(".")[1] as keyof typeof IMAGE_TYPES;
    if (!existsSync(join(p.dir, file))) return c.text("not found", 404);
    return c.body(new Uint8Array(readFileSync(join(p.dir, file))), 200, {
      "content-type": IMAGE_TYPES[ext],
    });
  });

  const api = new Hono();
  api.get("/v1/public/config", (c) => ok(c, raisedTokens));

  api.post("/v1/private/user/nonce/generate", async (c) => {
    const b = await json<{ accountAddress: string; verifyType: string; networkCode: string }>(c);
    if (!/^0x[0-9a-fA-F]{40}$/.test(b?.accountAddress ?? ""))
      return fail(c, "badRequest", "accountAddress must be an address");
    if (b?.verifyType !== "LOGIN" || b?.networkCode !== "BSC")
      return fail(c, "badRequest", "verifyType must be LOGIN and networkCode BSC");
    const nonce = randomBytes(16).toString("hex");
    nonces.set((b.accountAddress as string).toLowerCase(), nonce);
    return ok(c, nonce);
  });

  api.post("/v1/private/user/login/dex", async (c) => {
    const b = await json<{ verifyInfo: { address?: string; signature?: string } }>(c);
    const address = b?.verifyInfo?.address?.toLowerCase() as Address | undefined;
    const nonce = address ? nonces.get(address) : undefined;
    if (!address || !nonce || !b?.verifyInfo?.signature)
      return fail(c, "badRequest", "no nonce for this address");
    const valid = await verifyMessage({
      address,
      message: loginMessage(nonce),
      signature: b.verifyInfo.signature as `0x${string}`,
    }).catch(() => false);
    if (!valid) return fail(c, "unauthorized", "signature does not match");
    // A nonce logs in once.
    nonces.delete(address);
    const token = randomBytes(24).toString("base64url");
    sessions.set(token, address);
    return ok(c, token);
  });

  api.post(
    "/v1/private/token/upload",
    bodyLimit({
      maxSize: STAND_IN_LIMITS.fourMemeMaxImageBytes + 64 * 1024,
      onError: (c) => fail(c, "badRequest", "image larger than 5 MB"),
    }),
    async (c) => {
      if (!session(c)) return fail(c, "unauthorized", "login required");
      const form = await c.req.formData().catch(() => null);
      const file = form?.get("file");
      if (!(file instanceof File)) return fail(c, "badRequest", "multipart field file required");
      const bytes = new Uint8Array(await file.arrayBuffer());
      const kind = sniffImage(bytes);
      if (!kind || bytes.length > STAND_IN_LIMITS.fourMemeMaxImageBytes)
        return fail(c, "badRequest", "png, jpeg or webp up to 5 MB");
      const name = `${createHash("sha256").update(bytes).digest("hex")}.${kind}`;
      writeFileSync(join(p.dir, name), bytes);
      return ok(c, `${imagePrefix}${name}`);
    },
  );

  api.post("/v1/private/token/create", async (c) => {
    const creator = session(c);
    if (!creator) return fail(c, "unauthorized", "login required");
    const body = await json<TokenCreateBody>(c);
    const problem = createProblem({ body, raisedTokens, uploaded });
    if (problem) return fail(c, "badRequest", problem);
    const created = await signCreate({
      body: body as TokenCreateBody,
      creator,
      signer: p.signer,
      record: p.record,
    });
    p.log.info({ creator, name: body?.name }, "create args signed");
    return ok(c, created);
  });
  api.notFound((c) => c.json({ code: CODES.notFound, msg: "not found", data: null }, 404));
  app.route(BASE_PATH, api);

  app.onError((error, c) => {
    p.log.error({ err: error }, "launchpad stand-in error");
    return c.json({ code: CODES.internal, msg: "internal error", data: null }, 500);
  });
  return app;
}
