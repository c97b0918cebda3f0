import type { Address, LocalAccount } from "viem";
import { createSiweMessage } from "viem/siwe";
import { startTestChain, type TestChain } from "../../contracts/test/helpers.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { RelayerBudget } from "../../lib/relayer/spend.ts";
import type { App } from "../app.ts";
import type { DepositLaunchDeps } from "../deposit-launch/create.ts";
import type { CreateLaunchInput } from "../deposit-launch/schema.ts";
import type { TestBody } from "./app.ts";
import { requestAs } from "./client.ts";
import { startTestDatabase, type TestDatabase } from "./postgres.ts";

/** The web app's origin of `defaultApiSettings()`: the SIWE domain the API accepts. */
const WEB = "http://localhost:3000";

export type DepositWorld = {
  chain: TestChain;
  db: TestDatabase;
  /** The launch image's URL the caller gave (a host of the public world: test/helpers/world). */
  image: string;
  /** Deposit-launch features over this world's factory, paid by `relayer`. */
  deposit: (p: { relayer: LocalAccount; budget: RelayerBudget; sql?: Sql }) => DepositLaunchDeps;
  /** A creation body that passes every check, closing an hour after chain time. */
  body: (over?: Partial<CreateLaunchInput>) => Promise<CreateLaunchInput>;
  stop: () => Promise<void>;
};

/**
 * What deposit-launch tests over `app.request()` need: an anvil with the contracts deployed and
 * a migrated Postgres; the launch image is the caller's, fetched as production fetches one (no
 * trusted origin).
 *
 * @example
 * const images = await serveWorld("images.example.net", (_q, r) => r.end(samplePng()));
 * const w = await startDepositWorld(`${images.origin}/launch.png`); // afterAll(() => w.stop())
 */
export async function startDepositWorld(image: string): Promise<DepositWorld> {
  const [chain, db] = await Promise.all([startTestChain(), startTestDatabase()]);
  return {
    chain,
    db,
    image,
    deposit: (p) => ({
      sql: p.sql ?? db.sql,
      client: chain.publicClient,
      relayer: p.relayer,
      factory: chain.record.contracts.launchFactory as Address,
      chainId: chain.record.chainId,
      trustedImageOrigins: [],
      budget: p.budget,
    }),
    body: async (over = {}) => ({
      tier: "0",
      name: "Budget Test",
      symbol: "BGT",
      description: "A deposit launch of the relayer budget tests",
      image,
      closeTimestamp: Number((await chain.publicClient.getBlock()).timestamp) + 3600,
      buyTaxBps: 100,
      sellTaxBps: 100,
      ...over,
    }),
    stop: async () => {
      await Promise.all([chain.stop(), db.stop()]);
    },
  };
}

/**
 * A JSON request to `app` as the client at `ip`, with a session cookie if given.
 *
 * @example
 * const r = await callAs(app, "203.0.113.7", "POST", "/v2/launches", { cookie, body });
 */
export async function callAs(
  app: App,
  ip: string,
  method: string,
  path: string,
  o: { cookie?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = o.cookie ? { cookie: o.cookie } : {};
  if (o.body !== undefined) headers["content-type"] = "application/json";
  const res = await requestAs(app, path, {
    ip,
    init: { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) },
  });
  const text = await res.text();
  const body = (text.startsWith("{") ? JSON.parse(text) : { text }) as TestBody;
  return { res, status: res.status, body };
}

/**
 * Signs `account` in with SIWE from `ip` (nonce, EIP-4361 message, verify) and returns its
 * `siwe_session=…` cookie.
 *
 * @example
 * const cookie = await siweCookie(app, privateKeyToAccount(generatePrivateKey()), ip);
 */
export async function siweCookie(app: App, account: LocalAccount, ip: string): Promise<string> {
  const n = await callAs(app, ip, "GET", `/auth/nonce?address=${account.address}`);
  if (n.status !== 200) throw new Error(`nonce: ${n.status} ${JSON.stringify(n.body)}`);
  const message = createSiweMessage({
    domain: new URL(WEB).host,
    address: account.address,
    uri: WEB,
    version: "1",
    chainId: 56,
    nonce: n.body.data.nonce,
    issuedAt: new Date(),
  });
  const signature = await account.signMessage({ message });
  const v = await callAs(app, ip, "POST", "/auth/verify", { body: { message, signature } });
  const cookie = /siwe_session=[^;]+/.exec(v.res.headers.get("set-cookie") ?? "")?.[0];
  if (v.status !== 200 || !cookie) throw new Error(`verify: ${v.status} ${JSON.stringify(v.body)}`);
  return cookie;
}
