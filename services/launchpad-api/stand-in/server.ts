import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { type Address, createPublicClient, http, type LocalAccount, verifyMessage } from "viem";
import type { DeploymentRecord } from "../../../devnet/record.ts";
import { predictTokenAddress, signCreateArgs } from "../../../lib/create-args.ts";
import { sniffImage } from "../../../lib/image/sniff.ts";
import type { Logger } from "../../../lib/logger.ts";
import { STAND_IN_LIMITS } from "../../limits.ts";
import { loginMessage, type TokenCreateBody } from "../protocol.ts";
import { SAMPLE_PATHS, samplePng } from "./sample-image.ts";

export type LaunchpadStandInParameters = {
  rpcUrl: string;
  record: DeploymentRecord;
  /** The key TokenManager2 trusts for createToken args (devnet account 2). */
  signer: LocalAccount;
  /** Public base URL of this server (hosted images are linked under it). */
  baseUrl: string;
  /** Directory for uploaded images. */
  dir: string;
  log: Logger;
};

const IMAGE_TYPES = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" } as const;

/**
 * The local stand-in of four.meme's HTTP API: wallet login (nonce, `You are sign in Meme
 * {nonce}`, access token in `meme-web-access`), multipart image upload, token create answering
 * `{createArg, signature}` signed with the devnet launchpad signer, plus the predicted token
 * address. Also hosts the sample images local mode launches with.
 *
 * @example
 * const app = createLaunchpadApp({ rpcUrl, record, signer, baseUrl, dir, log });
 */
export function createLaunchpadApp(p: LaunchpadStandInParameters) {
  const client = createPublicClient({ transport: http(p.rpcUrl) });
  const nonces = new Map<string, string>();
  const sessions = new Map<string, Address>();
  const sample = samplePng();
  const app = new Hono();
  mkdirSync(p.dir, { recursive: true });
  const ok = <T>(data: T) => ({ code: "0", msg: "success", data });
  const fail = (msg: string) => ({ code: "-1", msg, data: null });
  const session = (token: string | undefined) => (token ? sessions.get(token) : undefined);

  app.get("/health", (c) => c.json({ ok: true, service: "launchpad-api-stand-in" }));
  app.get(SAMPLE_PATHS.image, (c) =>
    c.body(new Uint8Array(sample), 200, { "content-type": "image/png" }),
  );
  app.get(SAMPLE_PATHS.notImage, (c) => c.text("this is not an image\n"));
  app.get("/img/:file{[0-9a-f]{64}\\.(png|jpeg|webp)}", (c) => {
    const file = c.req.param("file");
    try {
      const ext = file.split(".")[1] as keyof typeof IMAGE_TYPES;
      return c.body(new Uint8Array(readFileSync(join(p.dir, file))), 200, {
        "content-type": IMAGE_TYPES[ext],
      });
    } catch {
      return c.json(fail("not found"), 404);
    }
  });

  app.post("/private/user/nonce/generate", async (c) => {
    const { accountAddress } = await c.req.json<{ accountAddress?: string }>();
    if (!/^0x[0-9a-fA-F]{40}$/.test(accountAddress ?? "")) return c.json(fail("bad address"), 400);
    const nonce = randomBytes(16).toString("hex");
    nonces.set((accountAddress as string).toLowerCase(), nonce);
    return c.json(ok(nonce));
  });

  app.post("/private/user/login/dex", async (c) => {
    const body = await c.req.json<{ verifyInfo?: { address?: string; signature?: string } }>();
    const address = body.verifyInfo?.address?.toLowerCase() as Address | undefined;
    const nonce = address ? nonces.get(address) : undefined;
    if (!address || !nonce || !body.verifyInfo?.signature)
      return c.json(fail("no nonce for this address"), 400);
    const valid = await verifyMessage({
      address,
      message: loginMessage(nonce),
      signature: body.verifyInfo.signature as `0x${string}`,
    }).catch(() => false);
    if (!valid) return c.json(fail("signature does not match"), 401);
    nonces.delete(address);
    const token = randomBytes(24).toString("base64url");
    sessions.set(token, address);
    return c.json(ok(token));
  });

  app.post(
    "/private/token/upload",
    bodyLimit({ maxSize: STAND_IN_LIMITS.launchpadMaxImageBytes + 64 * 1024 }),
    async (c) => {
      if (!session(c.req.header("meme-web-access"))) return c.json(fail("login required"), 401);
      const form = await c.req.formData();
      const file = form.get("file");
      if (!(file instanceof File)) return c.json(fail("multipart field file required"), 400);
      const bytes = new Uint8Array(await file.arrayBuffer());
      const kind = sniffImage(bytes);
      if (!kind || bytes.length > STAND_IN_LIMITS.launchpadMaxImageBytes)
        return c.json(fail("png, jpeg or webp up to 5 MB"), 400);
      const name = `${createHash("sha256").update(bytes).digest("hex")}.${kind}`;
      writeFileSync(join(p.dir, name), bytes);
      return c.json(ok(`${p.baseUrl}/img/${name}`));
    },
  );

  app.post("/private/token/create", async (c) => {
    const creator = session(c.req.header("meme-web-access"));
    if (!creator) return c.json(fail("login required"), 401);
    const b = await c.req.json<TokenCreateBody>();
    const tax = b.tokenTaxInfo;
    if (
      !b.name ||
      !b.shortName ||
      !b.imgUrl ||
      !tax ||
      !/^0x[0-9a-fA-F]{40}$/.test(tax.recipientAddress ?? "") ||
      ![tax.buyTaxBps, tax.sellTaxBps].every((v) => Number.isInteger(v) && v >= 0 && v <= 1000) ||
      !(
        Number.isInteger(tax.recipientRate) &&
        tax.recipientRate >= 0 &&
        tax.recipientRate <= 10_000
      )
    ) {
      return c.json(fail("name, shortName, imgUrl and tokenTaxInfo are required"), 400);
    }
    const r = p.record;
    const createArgs = {
      name: b.name,
      symbol: b.shortName,
      requestId: BigInt(`0x${randomBytes(16).toString("hex")}`),
      creator,
      buyTaxBps: tax.buyTaxBps,
      sellTaxBps: tax.sellTaxBps,
      treasury: tax.recipientAddress.toLowerCase() as Address,
      treasuryShareBps: tax.recipientRate,
    };
    const [signed, tokenAddress] = await Promise.all([
      signCreateArgs({
        ...createArgs,
        signer: p.signer,
        chainId: r.chainId,
        tokenManager: r.contracts.tokenManager2,
      }),
      predictTokenAddress({
        client,
        tokenDeployer: r.contracts.tokenDeployer,
        tokenManager: r.contracts.tokenManager2,
        router: r.contracts.uniswapV2Router,
        pairInitCodeHash: r.pairInitCodeHash,
        args: createArgs,
      }),
    ]);
    p.log.info({ creator, tokenAddress, name: b.name }, "create args signed");
    return c.json(
      ok({
        createArg: signed.args,
        signature: signed.signature,
        tokenAddress,
        requestId: createArgs.requestId.toString(),
      }),
    );
  });

  app.onError((error, c) => {
    p.log.error({ err: error }, "launchpad stand-in error");
    return c.json(fail(error.message.split("\n")[0] ?? "internal"), 500);
  });
  return app;
}
