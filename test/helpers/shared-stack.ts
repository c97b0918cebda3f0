import { samplePng } from "../../devnet/stand-ins/four-meme/sample-image.ts";
import { isolatedEnv, type Stack, startStack } from "./cli.ts";
import { launchEnv } from "./launch.ts";
import { serveWorld, type WorldServer } from "./world/serve.ts";

/**
 * One `launchpad start` shared by the suites of test/shared-stack.test.ts (suites that only read
 * or add their own agents, tokens and wallets, and assert only on them). It boots once, on the
 * first call, and that file's afterAll stops it. Its environment is the union of what those
 * suites needed on their own stacks:
 * - launchEnv: test mode, the admin token, a short upstream timeout, TRUST_PROXY (each request
 *   names its own client IP, so no suite spends another's per-IP budget);
 * - no trusted image origin but the devnet's own (its four.meme stand-in's sample images, on
 *   loopback): `ownImage` is on a host of the public world, fetched as production fetches one
 *   (apart from the stand-in that the launch suite stops);
 * - POLL_TIME_SCALE: the pollers poll 50 times as often (the pollers suite's `devnet seed`);
 * - WEB_URL: the web app's own port (the web suite's browser opens it).
 * A suite that kills, restarts or corrupts a stack, or needs another environment, boots its own.
 */
export type SharedStack = {
  stack: Stack;
  env: Record<string, string>;
  /** A PNG at https://images.example.net (public world), not on the launchpad stand-in. */
  ownImage: string;
};

let booting: Promise<SharedStack> | undefined;
let imageHost: WorldServer | undefined;

export function sharedStack(): Promise<SharedStack> {
  booting ??= boot();
  return booting;
}

async function boot(): Promise<SharedStack> {
  const base = await isolatedEnv();
  imageHost = await serveWorld("images.example.net", (_req, res) => {
    res.writeHead(200, { "content-type": "image/png" }).end(samplePng());
  });
  const env = launchEnv(base, {
    POLL_TIME_SCALE: "0.02",
    // The web app's public URL is where it listens (the web suite opens it in a browser; the
    // session suites sign in for it).
    WEB_URL: `http://127.0.0.1:${base.WEB_PORT}`,
  });
  const stack = await startStack(env);
  return { stack, env, ownImage: `${imageHost.origin}/agent.png` };
}

/** Stops the shared stack (Postgres, both chains, every role) and the image host. */
export async function stopSharedStack(): Promise<void> {
  const s = await booting?.catch(() => undefined);
  booting = undefined;
  await s?.stack.cleanup();
  await imageHost?.close();
  imageHost = undefined;
}
