import { getRequestListener } from "@hono/node-server";
import pino from "pino";
import { type Address, createPublicClient, http, type PublicClient } from "viem";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { startTestChain, type TestChain } from "../../contracts/test/helpers.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { SAMPLE_PATHS } from "../../devnet/stand-ins/four-meme/sample-image.ts";
import { createFourMemeApp } from "../../devnet/stand-ins/four-meme/server.ts";
import { STEPS } from "../../jobs/launch/chain-steps.ts";
import type { SagaContext } from "../../jobs/launch/context.ts";
import { classify } from "../../jobs/launch/errors.ts";
import { fourmemeSession } from "../../jobs/launch/fourmeme.ts";
import type { SagaRow } from "../../jobs/launch/row.ts";
import { treasuryPlan } from "../../jobs/launch/steps.ts";
import { decodeCreateArgs } from "../../lib/create-args.ts";
import { deriveKey, type Sealed, unseal } from "../../lib/crypto/seal.ts";
import { DEFAULT_TOKEN_TERMS } from "../../lib/token-terms.ts";
import { createFourMemeClient } from "../../services/four-meme/client.ts";
import { createStewardClient } from "../../services/steward/client.ts";
import { startLocalSteward } from "../helpers/steward.ts";
import { serveWorld } from "../helpers/world/serve.ts";

// What the launch keeps of four.meme's create flow, through the saga's own `launchpad` step
// against the four.meme and Steward stand-ins over HTTP, the devnet's contracts and a real
// Postgres: a wallet logs in once while its login is good (sealed at rest; one login at a time
// per wallet), an image is
// uploaded once per content, a kept login four.meme no longer honours is replaced and the
// create still succeeds, and a refusal of fresh ones fails the launch after exactly one more
// try. No other test counts four.meme's calls.

let chain: TestChain;
let db: TestDatabase;
let steward: Awaited<ReturnType<typeof startLocalSteward>>;
let stopFourmeme: () => void;
/** The stand-in behind the counting front; replaced to lose its in-memory logins. */
let standIn: ReturnType<typeof createFourMemeApp>;
let newStandIn: () => ReturnType<typeof createFourMemeApp>;
let calls: string[] = [];
let ctx: SagaContext;
let origin: string;

beforeAll(async () => {
  [chain, db, steward] = await Promise.all([
    startTestChain(),
    startTestDatabase(),
    startLocalSteward(),
  ]);
  // four.meme at its public name in the world (npm test), over TLS: its sample image is fetched
  // as production fetches an agent's image, with no trusted origin.
  const counting = getRequestListener((req) => {
    calls.push(new URL(req.url).pathname.replace("/meme-api/v1", ""));
    return standIn.fetch(req);
  });
  const server = await serveWorld("four-meme.example.com", counting);
  origin = server.origin;
  newStandIn = () =>
    createFourMemeApp({
      record: chain.record,
      signer: devnetAccounts().launchpadSigner,
      origin,
      dir: `${chain.dataDir}/img`,
      log: pino({ level: "silent" }),
    });
  standIn = newStandIn();
  stopFourmeme = () => void server.close();
  const c = chain.record.contracts;
  ctx = {
    sql: db.sql,
    log: pino({ level: "silent" }),
    client: createPublicClient({ transport: http(chain.anvil.rpcUrl) }) as PublicClient,
    contracts: {
      safeProxyFactory: c.safeProxyFactory,
      safeL2Singleton: c.safeL2Singleton,
      safeFallbackHandler: c.safeFallbackHandler,
    },
    safeOwners: [],
    safeThreshold: 1,
    steward: createStewardClient({
      url: steward.url,
      apiKey: steward.apiKey,
      tenantId: steward.tenantId,
      timeoutMs: 5_000,
      approvalWaitMs: 0,
      approvalPollMs: 100,
    }),
    launchpad: createFourMemeClient({ url: `${origin}/meme-api`, timeoutMs: 5_000 }),
    sessionKey: deriveKey(Buffer.alloc(32, 7), "test four.meme sessions"),
    trustedImageOrigins: [],
    tokenTerms: DEFAULT_TOKEN_TERMS,
    killPoints: [],
    dataDir: chain.dataDir,
  } as unknown as SagaContext;
}, 180_000);

afterAll(async () => {
  stopFourmeme?.();
  await Promise.all([chain?.stop(), db?.stop(), steward?.stop()]);
});

beforeEach(() => {
  calls = [];
});

/** A registered agent with its signer wallet and a running saga that asks for `name`. */
async function saga(agentId: string, name = `Kept ${agentId}`): Promise<SagaRow> {
  const w = await ctx.steward.provisionWallet({ agentId });
  const request = {
    agentId,
    name,
    ticker: "KEPT",
    description: "An agent whose launch keeps what it can.",
    imageUrl: `${origin}${SAMPLE_PATHS.image}`,
    chainId: 56 as const,
  };
  await db.sql`insert into app.agents (agent_id, name) values (${agentId}, ${agentId})
    on conflict do nothing`;
  const [row] = await db.sql<SagaRow[]>`
    insert into app.launch_sagas (agent_id, status, request, wallet_id, wallet_address)
    values (${agentId}, 'running', ${db.sql.json(request)}, ${w.walletId}, ${w.address.toLowerCase()})
    on conflict (agent_id) do update set request = excluded.request, create_arg = null,
      create_signature = null
    returning *`;
  return row as SagaRow;
}

/** four.meme's private calls by path (not its public config, nor the sample image it hosts). */
const counted = () => calls.filter((c) => c.startsWith("/private/"));
const LOGIN = ["/private/user/nonce/generate", "/private/user/login/dex"];

describe("four.meme's login and upload, kept", () => {
  it("logs a wallet in once while its login is good, sealed at rest; uploads an image once", async () => {
    const a = await saga("kept-a");
    expect(await STEPS.launchpad(ctx, a)).toBe("done");
    expect(counted()).toEqual([...LOGIN, "/private/token/upload", "/private/token/create"]);
    // The create args name the treasury's CREATE2 address, known before the Safe exists.
    const args = decodeCreateArgs(a.create_arg as `0x${string}`);
    expect(args.recipient.toLowerCase()).toBe((await treasuryPlan(ctx, a)).address);
    expect(
      await chain.publicClient.getCode({ address: args.recipient as Address }),
    ).toBeUndefined();

    // Sealed: the row holds no token in the clear, and opens only for its own wallet.
    const [kept] = await db.sql<{ token: Sealed; wallet_address: string }[]>`
      select token, wallet_address from app.fourmeme_sessions`;
    const token = unseal(ctx.sessionKey, kept?.token as Sealed, a.wallet_address as string);
    expect(JSON.stringify(kept)).not.toContain(token);
    expect(() => unseal(ctx.sessionKey, kept?.token as Sealed, "0xother")).toThrow();

    // Another wallet with the same picture: its own login, no upload.
    calls = [];
    const b = await saga("kept-b");
    await STEPS.launchpad(ctx, b);
    expect(counted()).toEqual([...LOGIN, "/private/token/create"]);

    // The first wallet again (a new attempt after a failure): neither login nor upload.
    calls = [];
    const again = await saga("kept-a", "Kept again");
    await STEPS.launchpad(ctx, again);
    expect(counted()).toEqual(["/private/token/create"]);
    expect(again.create_arg).not.toBe(a.create_arg);
  });

  it("two logins of one wallet at once (its preparation's and its launch's): one login, both use it", async () => {
    const a = await saga("kept-twice");
    const w = {
      agentId: a.agent_id,
      walletId: a.wallet_id as string,
      address: a.wallet_address as Address,
    };
    // Unserialised, the stand-in's second nonce replaces the first and one login is refused.
    const [one, two] = await Promise.all([fourmemeSession(ctx, w), fourmemeSession(ctx, w)]);
    expect(one.token).toBe(two.token);
    expect(counted()).toEqual(LOGIN);
  });

  it("logs in anew once the kept login is past its lifetime", async () => {
    const a = await saga("kept-a", "Kept expired");
    await db.sql`update app.fourmeme_sessions set expires_at = now() - interval '1 second'
      where wallet_address = ${a.wallet_address}`;
    await STEPS.launchpad(ctx, a);
    expect(counted()).toEqual([...LOGIN, "/private/token/create"]);
  });

  it("a kept login four.meme no longer honours: refused once, then a fresh login and upload, and the create succeeds", async () => {
    // A restarted four.meme knows none of the logins it gave out (as if they expired).
    standIn = newStandIn();
    const a = await saga("kept-a", "Kept stale");
    expect(await STEPS.launchpad(ctx, a)).toBe("done");
    expect(counted()).toEqual([
      "/private/token/create", // the kept login and upload: refused, login required
      ...LOGIN,
      "/private/token/upload",
      "/private/token/create",
    ]);
    expect(a.create_arg).toMatch(/^0x/);
  });

  it("a refusal of a fresh login and upload fails the launch with four.meme's message after one more try, not more", async () => {
    // 40 characters: four.meme (here the stand-in) refuses the name whatever the login.
    const a = await saga("kept-c", "A name far longer than thirty-two chars");
    await db.sql`delete from app.fourmeme_images`;
    const error = await STEPS.launchpad(ctx, a).catch((e: unknown) => e);
    expect(classify(error, "launchpad")).toMatchObject({ code: "LAUNCHPAD_ERROR" });
    expect(String((error as Error).message)).toMatch(/name must be 1-32/);
    // Nothing kept at first (a new wallet, no image): refused once, with no retry.
    expect(counted()).toEqual([...LOGIN, "/private/token/upload", "/private/token/create"]);
    expect(a.create_arg).toBeNull();

    // Kept login and image: refused, then once more with fresh ones, refused again: final.
    calls = [];
    await expect(STEPS.launchpad(ctx, a)).rejects.toThrow(/name must be 1-32/);
    expect(counted()).toEqual([
      "/private/token/create",
      ...LOGIN,
      "/private/token/upload",
      "/private/token/create",
    ]);
  });
});
