import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { runCli, type Stack, waitFor } from "../helpers/cli.ts";
import {
  bearer,
  chainClient,
  createAgentCli,
  launch,
  launchBody,
  nextIp,
  readRecord,
  stackSql,
  waitWalletsPrepared,
} from "../helpers/launch.ts";
import { sharedStack } from "../helpers/shared-stack.ts";
import { type Body, openApiChecker } from "./helpers.ts";

// The agent launch's dry run on a real stack: same checks as the launch, nothing changes,
// and the launch that follows lands on the predicted wallet and treasury.

let stack: Stack;
let env: Record<string, string>;
let sql: ReturnType<typeof stackSql>;
let sample: string;
let check: Awaited<ReturnType<typeof openApiChecker>>;

beforeAll(async () => {
  ({ stack, env } = await sharedStack());
  sql = stackSql(env.LAUNCHPAD_DATA_DIR as string);
  sample = JSON.parse((await runCli(["devnet", "info", "--json"], env)).stdout).sampleImageUrl;
  check = await openApiChecker(stack.apiUrl);
}, 240_000);

afterAll(async () => {
  await sql?.end({ timeout: 2 });
});

const xUrl = () => `http://127.0.0.1:${env.X_PORT}`;

async function preview(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.apiUrl}/v2/agents/launch/preview`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": nextIp(), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

describe("POST /v2/agents/launch/preview", () => {
  it("runs the launch's checks in the same order with the same codes", async () => {
    const a = await createAgentCli(env, "preview-checks");
    const other = await createAgentCli(env, "preview-other");
    const expectCode = async (r: { status: number; body: Body }, status: number, error: string) => {
      expect(r.status).toBe(status);
      expect(r.body.error).toBe(error);
      expect(check("/v2/agents/launch/preview", "post", status, r.body)).toEqual([]);
    };
    await expectCode(await preview("not json"), 401, "AGENT_AUTH_MISSING");
    await expectCode(
      await preview({}, { "x-agent-api-key": "agk_nope" }),
      401,
      "AGENT_AUTH_INVALID",
    );
    await expectCode(await preview({ agentId: a.agentId }, bearer(a)), 400, "INVALID_REQUEST");
    await expectCode(await preview(launchBody(other, sample), bearer(a)), 403, "AGENT_ID_MISMATCH");
    const badImage = await preview(launchBody(a, "http://10.0.0.1/x.png"), bearer(a));
    await expectCode(badImage, 400, "INVALID_REQUEST");
    expect(badImage.body.details[0].path).toBe("imageUrl");
  });

  it("predicts without changing anything, and the launch lands on the prediction", async () => {
    const a = await createAgentCli(env, "preview-agent");
    const chain = chainClient(env);
    const record = readRecord(env.LAUNCHPAD_DATA_DIR as string) as unknown as {
      accounts: { relayer: Address };
    };
    const relayer = record.accounts.relayer;
    // The worker prepares (funds) a registered agent's wallet on its own clock: let it finish
    // first, so what follows sees only the preview.
    const prepared = await waitWalletsPrepared(env.LAUNCHPAD_DATA_DIR as string, [a.agentId]);
    const walletBalance = await chain.getBalance({
      address: prepared.get(a.agentId) as Address,
    });
    const state = async () => ({
      sagas: await sql`select * from app.launch_sagas order by agent_id`,
      nonce: await chain.getTransactionCount({ address: relayer }),
      balance: await chain.getBalance({ address: relayer }),
    });
    const before = await state();
    const r = await preview(launchBody(a, sample), bearer(a));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(check("/v2/agents/launch/preview", "post", 200, r.body)).toEqual([]);
    const p = r.body.data;
    // The prepared wallet holds the launch's whole budget (launch fee and gas): nothing to fund.
    expect(p.transactions.map((t: Body) => t.step)).toEqual([
      "treasury",
      "identity",
      "create",
      "register",
    ]);
    expect(p.tokenAddress).toBeNull();
    expect(await chain.getBalance({ address: p.walletAddress })).toBeGreaterThanOrEqual(
      BigInt(p.launchFeeWei) +
        p.transactions
          .filter((t: Body) => t.from === p.walletAddress)
          .reduce((sum: bigint, t: Body) => sum + BigInt(t.gas), 0n) *
          BigInt(p.gasPriceWei),
    );
    expect(BigInt(p.relayerSpendWei)).toBe(
      p.transactions
        .filter((t: Body) => t.from !== p.walletAddress)
        .reduce((sum: bigint, t: Body) => sum + BigInt(t.gas), 0n) * BigInt(p.gasPriceWei),
    );
    const again = await preview(launchBody(a, sample), bearer(a));
    expect(again.body.data.walletAddress).toBe(p.walletAddress);
    expect(again.body.data.treasuryAddress).toBe(p.treasuryAddress);
    // Nothing changed: no saga row, no relayer transaction, no money moved, no Safe deployed.
    expect(await state()).toEqual(before);
    expect(p.walletAddress).toBe(prepared.get(a.agentId));
    expect(await chain.getBalance({ address: p.walletAddress })).toBe(walletBalance);
    expect(await chain.getCode({ address: p.treasuryAddress })).toBeUndefined();

    // A patron signs in over X (the stand-in consents as patron_one) before the launch.
    const login = await fetch(`${stack.apiUrl}/auth/social/login`, { redirect: "manual" });
    const stateCookie = /oauth_state=[^;]+/.exec(login.headers.get("set-cookie") ?? "")?.[0] ?? "";
    const consent = await fetch(login.headers.get("location") as string, { redirect: "manual" });
    const callback = await fetch(consent.headers.get("location") as string, {
      redirect: "manual",
      headers: { cookie: stateCookie },
    });
    expect(callback.status).toBe(302);
    expect(callback.headers.get("set-cookie")).toMatch(/service_session=/);

    const launched = await launch(
      stack.apiUrl,
      launchBody(a, sample, { patronX: "@Patron_One" }),
      bearer(a),
    );
    expect(launched.status, JSON.stringify(launched.body)).toBe(200);
    expect(launched.body.data.walletAddress).toBe(p.walletAddress);
    expect(launched.body.data.treasuryAddress).toBe(p.treasuryAddress);
    // The relayer's spend matches the prediction within the gas estimates' slack. With nothing
    // to fund it is all gas, the entry's a budget (200k for about 150k used): 88 % was measured.
    const spent = before.balance - (await chain.getBalance({ address: relayer }));
    const predicted = BigInt(p.relayerSpendWei);
    expect(spent * 100n).toBeGreaterThan(predicted * 80n);
    expect(spent * 100n).toBeLessThan(predicted * 110n);

    const after = await preview(launchBody(a, sample), bearer(a));
    expect(after.status).toBe(409);
    expect(after.body.error).toBe("AGENT_ALREADY_LAUNCHED");

    // The joint announcement was posted through X and recorded as tweet.posted.
    const token = launched.body.data.tokenAddress as string;
    const event = await waitFor("the announcement event", async () => {
      const [row] = await sql`select data from app.agent_events
        where agent_id = ${a.agentId} and event_type = 'tweet.posted'`;
      return row?.data as Body | undefined;
    });
    expect(event).toMatchObject({
      patronHandle: "patron_one",
      patronSignedIn: true,
      tokenAddress: token,
    });
    const tweets = (await (await fetch(`${xUrl()}/stand-in/tweets`)).json()) as Body;
    const posted = tweets.data.find((t: Body) => t.id === event.tweetId);
    expect(posted.text).toContain("@patron_one");
    expect(posted.text).toContain(`/agent/${token}`);
  });

  it("a failure to post never fails the launch", async () => {
    await fetch(`${xUrl()}/stand-in/fail-tweets`, { method: "PUT", body: '{"fail":true}' });
    // The stand-in is shared: it posts again afterwards, whatever this test's outcome.
    onTestFinished(async () => {
      await fetch(`${xUrl()}/stand-in/fail-tweets`, { method: "PUT", body: '{"fail":false}' });
    });
    const a = await createAgentCli(env, "unannounced-agent");
    const launched = await launch(
      stack.apiUrl,
      launchBody(a, sample, { name: "Quiet Agent", ticker: "QUIET", patronX: "nobody_here" }),
      bearer(a),
    );
    expect(launched.status, JSON.stringify(launched.body)).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    const rows =
      await sql`select 1 from app.agent_events where agent_id = ${a.agentId} and event_type = 'tweet.posted'`;
    expect(rows).toHaveLength(0);
  });
});
