import { createServer, type Server } from "node:http";
import { samplePng } from "../../devnet/stand-ins/four-meme/sample-image.ts";
import { freeListenPort } from "../../lib/local/net.ts";
import { isolatedEnv, type Stack, startStack } from "./cli.ts";
import { launchEnv } from "./launch.ts";

/**
 * One `launchpad start` shared by the suites of test/shared-stack.test.ts (suites that only read
 * or add their own agents, tokens and wallets, and assert only on them). It boots once, on the
 * first call, and that file's afterAll stops it. Its environment is the union of what those
 * suites needed on their own stacks:
 * - launchEnv: test mode, the admin token, a short upstream timeout, TRUST_PROXY (each request
 *   names its own client IP, so no suite spends another's per-IP budget);
 * - LAUNCH_IMAGE_TRUSTED_ORIGINS: the launchpad stand-in's origin and a second image host
 *   (`ownImage`, served here, apart from the stand-in that the launch suite stops);
 * - POLL_TIME_SCALE: the pollers poll 50 times as often (the pollers suite's `devnet seed`);
 * - WEB_URL: the web app's own port (the web suite's browser opens it).
 * A suite that kills, restarts or corrupts a stack, or needs another environment, boots its own.
 */
export type SharedStack = {
  stack: Stack;
  env: Record<string, string>;
  /** A PNG on a trusted image origin that is not the launchpad stand-in. */
  ownImage: string;
};

let booting: Promise<SharedStack> | undefined;
let imageHost: Server | undefined;

export function sharedStack(): Promise<SharedStack> {
  booting ??= boot();
  return booting;
}

async function boot(): Promise<SharedStack> {
  const base = await isolatedEnv();
  const imagePort = await freeImagePort();
  const env = launchEnv(base, {
    LAUNCH_IMAGE_TRUSTED_ORIGINS: `http://127.0.0.1:${base.FOUR_MEME_API_PORT},http://127.0.0.1:${imagePort}`,
    POLL_TIME_SCALE: "0.02",
    // The web app's public URL is where it listens (the web suite opens it in a browser; the
    // session suites sign in for it).
    WEB_URL: `http://127.0.0.1:${base.WEB_PORT}`,
  });
  const stack = await startStack(env);
  return { stack, env, ownImage: `http://127.0.0.1:${imagePort}/agent.png` };
}

/** Starts the image host on a port from this worker's range and returns that port. */
async function freeImagePort(): Promise<number> {
  const port = await freeListenPort();
  imageHost = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "image/png" }).end(samplePng());
  });
  await new Promise<void>((r) => imageHost?.listen(port, "127.0.0.1", r));
  return port;
}

/** Stops the shared stack (Postgres, both chains, every role) and the image host. */
export async function stopSharedStack(): Promise<void> {
  const s = await booting?.catch(() => undefined);
  booting = undefined;
  await s?.stack.cleanup();
  imageHost?.close();
  imageHost = undefined;
}
