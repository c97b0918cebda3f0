import { createHash } from "node:crypto";
import type { Address } from "viem";
import { type Sealed, seal, unseal } from "../../lib/crypto/seal.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { CheckImageReturnType } from "../../lib/image/check.ts";
import { loginMessage } from "../../services/four-meme/protocol.ts";
import { UpstreamError } from "../../services/http.ts";
import { LAUNCH_LIMITS } from "../limits.ts";
import type { SagaContext } from "./context.ts";
import { maybeKill } from "./kill-points.ts";

// What the launch keeps of four.meme's create flow (docs/upstreams.md, "Create flow") so that a
// launch runs only its `create` call: a wallet's login while it is good (sealed at rest) and
// the hosted URL of an image already uploaded, by the sha256 of its bytes. Either is a cache:
// losing it costs a login or an upload, never a launch; four.meme refusing a kept one makes
// the caller log in and upload afresh once (`withFreshOnRefusal`).

/**
 * Kill points (test mode): a login or an upload stored, before anything uses it. A kill in
 * another lane can land between the store and its kill point; the point then fires where the
 * restarted saga first takes the kept one, the same state (stored, not used).
 */
export const FOURMEME_KILL_POINTS = ["fourmeme-login-stored", "fourmeme-image-stored"] as const;

/** The wallet four.meme knows: the signer's id (to sign the login) and its address. */
export type FourmemeWallet = { agentId: string; walletId: string; address: Address };

/** An access token for `meme-web-access`; `kept`: read from the store, not just obtained. */
export type FourmemeSession = { token: string; kept: boolean };

/**
 * The wallet's four.meme login: the kept one while it is within its lifetime
 * (LAUNCH_LIMITS.fourmemeSessionTtlMs), else four.meme's nonce, the wallet's signature of
 * four.meme's message through the signer, and the login, kept (sealed) for the next call.
 * `fresh` skips the kept one (four.meme refused it). One login per wallet at a time, across
 * processes (an advisory lock): nonces are asked per address, and a second login begun
 * meanwhile (the preparation's and the launch's) may replace the first one's nonce (the
 * stand-in keeps the latest only; four.meme does not say).
 *
 * @example
 * const { token } = await fourmemeSession(ctx, { agentId, walletId, address });
 */
export async function fourmemeSession(
  ctx: SagaContext,
  w: FourmemeWallet,
  o: { fresh?: boolean } = {},
): Promise<FourmemeSession> {
  const address = w.address.toLowerCase() as Address;
  const kept = async (sql: Sql) => {
    const [row] = await sql<{ token: Sealed }[]>`
      select token from app.fourmeme_sessions where wallet_address = ${address} and expires_at > now()`;
    try {
      return row && unseal(ctx.sessionKey, row.token, address);
    } catch {
      return undefined; // sealed under another key (SECRETS_KEY changed): as good as none
    }
  };
  const before = o.fresh ? undefined : await kept(ctx.sql);
  if (before) {
    kill(ctx, w.agentId, "fourmeme-login-stored");
    return { token: before, kept: true };
  }
  const session = await ctx.sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${`fourmeme-login:${address}`}, 0))`;
    // Another process may have logged this wallet in while this one waited for the lock.
    const meanwhile = o.fresh ? undefined : await kept(tx as unknown as Sql);
    if (meanwhile) return { token: meanwhile, kept: true };
    const nonce = await ctx.launchpad.nonce(address);
    const { signature } = await ctx.steward.signMessage(w.walletId, loginMessage(nonce));
    const token = await ctx.launchpad.login(address, signature);
    await tx`
      insert into app.fourmeme_sessions (wallet_address, token, expires_at)
      values (${address}, ${tx.json(seal(ctx.sessionKey, token, address))},
        now() + make_interval(secs => ${LAUNCH_LIMITS.fourmemeSessionTtlMs / 1000}))
      on conflict (wallet_address) do update set token = excluded.token,
        logged_in_at = now(), expires_at = excluded.expires_at`;
    return { token, kept: false };
  });
  if (!session.kept) kill(ctx, w.agentId, "fourmeme-login-stored");
  return session;
}

/**
 * four.meme's hosted URL of a checked image: the one kept for the same bytes (sha256), else
 * uploaded with `token` and kept. `fresh` uploads even if one is kept (four.meme refused it).
 *
 * @example
 * const { url } = await fourmemeImage(ctx, agentId, token, await checkImage({ url, trustedOrigins }));
 */
export async function fourmemeImage(
  ctx: SagaContext,
  agentId: string,
  token: string,
  image: CheckImageReturnType,
  o: { fresh?: boolean } = {},
): Promise<{ url: string; kept: boolean }> {
  const sha256 = createHash("sha256").update(image.bytes).digest("hex");
  if (!o.fresh) {
    const [row] = await ctx.sql<{ url: string }[]>`
      select url from app.fourmeme_images where sha256 = ${sha256}`;
    if (row) {
      kill(ctx, agentId, "fourmeme-image-stored");
      return { url: row.url, kept: true };
    }
  }
  const url = await ctx.launchpad.upload(
    token,
    image.bytes,
    `agent.${image.type}`,
    `image/${image.type}`,
  );
  await ctx.sql`
    insert into app.fourmeme_images (sha256, url) values (${sha256}, ${url})
    on conflict (sha256) do update set url = excluded.url, uploaded_at = now()`;
  kill(ctx, agentId, "fourmeme-image-stored");
  return { url, kept: false };
}

/**
 * Runs `call` with what is kept, and once more with everything fresh when four.meme refuses
 * it after something kept was used (`call` reports each through `used`): four.meme documents
 * neither the lifetime of a login nor the code of an expired one, so any refusal that followed
 * a kept login or upload is taken as stale. A refusal of fresh ones is four.meme's answer.
 *
 * @example
 * const created = await withFreshOnRefusal((fresh, used) => createOnce(fresh, used));
 */
export async function withFreshOnRefusal<T>(
  call: (fresh: boolean, used: (kept: boolean) => void) => Promise<T>,
): Promise<T> {
  let keptUsed = false;
  try {
    return await call(false, (kept) => {
      keptUsed ||= kept;
    });
  } catch (error) {
    const refused =
      error instanceof UpstreamError && error.service === "launchpad" && error.kind === "rejected";
    if (!refused || !keptUsed) throw error;
  }
  return call(true, () => {});
}

const kill = (ctx: SagaContext, agentId: string, step: (typeof FOURMEME_KILL_POINTS)[number]) =>
  maybeKill({ points: ctx.killPoints, dataDir: ctx.dataDir, agentId, step });
