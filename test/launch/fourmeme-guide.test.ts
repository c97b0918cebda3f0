import { serve } from "@hono/node-server";
import pino from "pino";
import {
  type Account,
  type Address,
  erc20Abi,
  type Hex,
  parseAbi,
  parseEther,
  parseEventLogs,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestChain, type TestChain } from "../../contracts/test/helpers.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { samplePng } from "../../devnet/stand-ins/four-meme/sample-image.ts";
import { createFourMemeApp } from "../../devnet/stand-ins/four-meme/server.ts";
import { freePort } from "../../lib/local/net.ts";

// four.meme's create flow driven as its guide (fourmeme-docs docs/create-guide.md) tells a
// third party to run it, with a client written here from that guide alone, against the
// stand-in and the devnet's TokenManager2. Not the service's client: the stand-in must pass
// for anyone who follows four.meme's documentation.

/** The guide's on-chain surface (section 4), as the guide prints it. */
const guideAbi = parseAbi([
  "function createToken(bytes args, bytes signature) payable",
  "function _launchFee() view returns (uint256)",
  "event TokenCreate(address creator, address token, uint256 requestId, string name, string symbol, uint256 totalSupply, uint256 launchTime, uint256 launchFee)",
  // The trade guide (section 6) and ITokenManager2.sol: AntiSniperFeeMode is feeSetting > 0.
  "function _tradingFeeRate() view returns (uint256)",
  "function _tokenInfoEx1s(address token) view returns (uint256 launchFee, uint256 pcFee, uint256 feeSetting, uint256 blockNumber, uint256 extraFee)",
  "event TokenPurchase(address token, address account, uint256 price, uint256 amount, uint256 cost, uint256 fee, uint256 offers, uint256 funds)",
]);

type Envelope = { code: string | number; msg?: string; data: unknown };

/** The guide's REST calls: base host + `/v1/...`, `meme-web-access` once logged in. */
function guideClient(base: string) {
  const send = async (path: string, init: RequestInit, token?: string): Promise<Envelope> => {
    const headers = new Headers(init.headers);
    if (token) headers.set("meme-web-access", token);
    const res = await fetch(`${base}/v1${path}`, { ...init, headers });
    expect(res.status).toBe(200);
    return (await res.json()) as Envelope;
  };
  const post = (path: string, body: unknown, token?: string) =>
    send(
      path,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      },
      token,
    );
  return {
    config: () => send("/public/config", { method: "GET" }),
    nonce: (address: string) =>
      post("/private/user/nonce/generate", {
        accountAddress: address,
        verifyType: "LOGIN",
        networkCode: "BSC",
      }),
    login: (address: string, signature: string) =>
      post("/private/user/login/dex", {
        region: "WEB",
        langType: "EN",
        loginIp: "",
        inviteCode: "",
        verifyInfo: { address, networkCode: "BSC", signature, verifyType: "LOGIN" },
        walletName: "MetaMask",
      }),
    upload: (token: string | undefined, bytes: Uint8Array, name = "logo.png") => {
      const form = new FormData();
      form.append("file", new Blob([bytes], { type: "image/png" }), name);
      return send("/private/token/upload", { method: "POST", body: form }, token);
    },
    create: (token: string | undefined, body: unknown) =>
      post("/private/token/create", body, token),
  };
}

let chain: TestChain;
let api: ReturnType<typeof guideClient>;
let stop: () => void;

beforeAll(async () => {
  chain = await startTestChain();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = serve({
    fetch: createFourMemeApp({
      record: chain.record,
      signer: devnetAccounts().launchpadSigner,
      origin,
      dir: `${chain.dataDir}/img`,
      log: pino({ level: "silent" }),
    }).fetch,
    hostname: "127.0.0.1",
    port,
  });
  stop = () => server.close();
  // The guide's base host is https://four.meme/meme-api.
  api = guideClient(`${origin}/meme-api`);
}, 120_000);

afterAll(async () => {
  stop?.();
  await chain?.stop();
});

const ok = (e: Envelope) => {
  expect(e).toMatchObject({ code: "0" });
  return e.data;
};
const refused = (e: Envelope, msg: RegExp) => {
  expect(String(e.code)).not.toBe("0");
  expect(e.msg).toMatch(msg);
  expect(e.data ?? null).toBeNull();
};

/** Steps 1-2: nonce, `You are sign in Meme {nonce}` signed by the wallet, login. */
async function login(account: Account & { signMessage: NonNullable<Account["signMessage"]> }) {
  const nonce = ok(await api.nonce(account.address)) as string;
  const signature = await account.signMessage({ message: `You are sign in Meme ${nonce}` });
  return ok(await api.login(account.address, signature)) as string;
}

/** The guide's example body (section 2.4) with our image, ticker and recipient. */
function body(imgUrl: string, raisedToken: unknown, recipient: Address) {
  return {
    name: "Guide Token",
    shortName: "GUIDE",
    desc: "Created as four.meme's create guide says",
    imgUrl,
    launchTime: Date.now(),
    label: "AI",
    lpTradingFee: 0.0025,
    webUrl: "https://example.com",
    preSale: "0",
    onlyMPC: false,
    feePlan: false,
    tokenTaxInfo: {
      feeRate: 5,
      burnRate: 20,
      divideRate: 30,
      liquidityRate: 40,
      recipientRate: 10,
      recipientAddress: recipient,
      minSharing: 100000,
    },
    raisedToken,
  };
}

describe("four.meme's create guide against the stand-in and the devnet", () => {
  it("config, login, upload, create, createToken: TokenCreate names the token asked for", async () => {
    const presets = ok(await api.config()) as { symbol: string; status: string }[];
    const bnb = presets.find((t) => t.symbol === "BNB" && t.status === "PUBLISH");
    expect(bnb).toBeDefined();
    const creator = (await chain.fundedAccount()) as ReturnType<typeof privateKeyToAccount>;
    const token = await login(creator);
    const imgUrl = ok(await api.upload(token, samplePng())) as string;
    // The hosted copy is served back.
    expect((await fetch(imgUrl)).headers.get("content-type")).toBe("image/png");
    const created = ok(await api.create(token, body(imgUrl, bnb, creator.address))) as Record<
      string,
      Hex
    >;
    // Only createArg and signature: the token's address is not known before createToken.
    expect(Object.keys(created).sort()).toEqual(["createArg", "signature"]);
    const tm = chain.record.contracts.tokenManager2;
    const fee = await chain.publicClient.readContract({
      address: tm,
      abi: guideAbi,
      functionName: "_launchFee",
    });
    const receipt = await chain.mined(
      await chain.wallet(creator).writeContract({
        address: tm,
        abi: guideAbi,
        functionName: "createToken",
        args: [created.createArg as Hex, created.signature as Hex],
        value: fee,
      }),
    );
    const [ev] = parseEventLogs({ abi: guideAbi, logs: receipt.logs, eventName: "TokenCreate" });
    expect(ev?.args).toMatchObject({ name: "Guide Token", symbol: "GUIDE", launchFee: fee });
    expect(ev?.args.creator.toLowerCase()).toBe(creator.address.toLowerCase());
    const read = (functionName: "name" | "symbol") =>
      chain.publicClient.readContract({
        address: ev?.args.token as Address,
        abi: erc20Abi,
        functionName,
      });
    expect([await read("name"), await read("symbol")]).toEqual(["Guide Token", "GUIDE"]);

    // The same pair again: the signature is single use.
    await expect(
      chain.wallet(creator).writeContract({
        address: tm,
        abi: guideAbi,
        functionName: "createToken",
        args: [created.createArg as Hex, created.signature as Hex],
        value: fee,
      }),
    ).rejects.toThrow(/RequestUsed|revert/);
  }, 120_000);

  it("preSale and feePlan: the value the guide's scripts send buys the preSale for the creator, and the token is in AntiSniperFeeMode", async () => {
    const [bnb] = ok(await api.config()) as unknown[];
    const creator = (await chain.fundedAccount()) as ReturnType<typeof privateKeyToAccount>;
    const token = await login(creator);
    const imgUrl = ok(await api.upload(token, samplePng())) as string;
    const asked = { ...body(imgUrl, bnb, creator.address), preSale: "0.01", feePlan: true };
    const created = ok(await api.create(token, asked)) as Record<string, Hex>;
    const tm = chain.record.contracts.tokenManager2;
    const read = (functionName: "_launchFee" | "_tradingFeeRate") =>
      chain.publicClient.readContract({ address: tm, abi: guideAbi, functionName });
    // four-meme-ai's create-token-api.ts: launch fee + preSale in wei + its trading fee.
    const preSale = parseEther(asked.preSale);
    const value =
      (await read("_launchFee")) + preSale + (preSale * (await read("_tradingFeeRate"))) / 10_000n;
    const receipt = await chain.mined(
      await chain.wallet(creator).writeContract({
        address: tm,
        abi: guideAbi,
        functionName: "createToken",
        args: [created.createArg as Hex, created.signature as Hex],
        value,
      }),
    );
    const [made] = parseEventLogs({ abi: guideAbi, logs: receipt.logs, eventName: "TokenCreate" });
    const [buy] = parseEventLogs({ abi: guideAbi, logs: receipt.logs, eventName: "TokenPurchase" });
    expect(buy?.args.account.toLowerCase()).toBe(creator.address.toLowerCase());
    expect(buy?.args.cost).toBeLessThanOrEqual(preSale);
    expect(buy?.args.amount).toBeGreaterThan(0n);
    const ex1 = await chain.publicClient.readContract({
      address: tm,
      abi: guideAbi,
      functionName: "_tokenInfoEx1s",
      args: [made?.args.token as Address],
    });
    expect(ex1[2]).toBeGreaterThan(0n);
  }, 60_000);

  it("refuses what four.meme refuses, in its envelope", async () => {
    const [bnb] = ok(await api.config()) as unknown[];
    const creator = (await chain.fundedAccount()) as ReturnType<typeof privateKeyToAccount>;
    // No login: neither upload nor create.
    refused(await api.upload(undefined, samplePng()), /login/);
    refused(await api.create(undefined, body("x", bnb, creator.address)), /login/);
    // A signature of another message does not log in; a nonce logs in once.
    const nonce = ok(await api.nonce(creator.address)) as string;
    const wrong = await creator.signMessage({ message: `You are sign in Meme x${nonce}` });
    refused(await api.login(creator.address, wrong), /signature/);
    const token = await login(creator);
    const imgUrl = ok(await api.upload(token, samplePng())) as string;
    refused(await api.upload(token, new TextEncoder().encode("not an image")), /png|jpeg/);
    const good = body(imgUrl, bnb, creator.address);
    const tax = good.tokenTaxInfo;
    const cases: [unknown, RegExp][] = [
      [{ ...good, label: "Memes" }, /label/],
      [{ ...good, imgUrl: "https://example.com/logo.png" }, /imgUrl/],
      [{ ...good, raisedToken: undefined }, /raisedToken/],
      [{ ...good, raisedToken: { ...(bnb as object), totalBAmount: "1" } }, /raisedToken/],
      [{ ...good, name: "N".repeat(33) }, /name/],
      [{ ...good, shortName: "NO SPACE" }, /shortName/],
      [{ ...good, lpTradingFee: 0.01 }, /lpTradingFee/],
      [{ ...good, tokenTaxInfo: { ...tax, feeRate: 2 } }, /feeRate/],
      [{ ...good, tokenTaxInfo: { ...tax, burnRate: 10 } }, /equal 100/],
      [{ ...good, tokenTaxInfo: { ...tax, minSharing: 150000 } }, /minSharing/],
      [{ ...good, tokenTaxInfo: { ...tax, minSharing: 10000 } }, /minSharing/],
      [{ ...good, tokenTaxInfo: { ...tax, recipientAddress: "" } }, /recipientAddress/],
      // preSale is a decimal string of the quote ("0" for none), feePlan a boolean.
      [{ ...good, preSale: 0.1 }, /preSale/],
      [{ ...good, preSale: "-0.1" }, /preSale/],
      [{ ...good, preSale: "0.1 BNB" }, /preSale/],
      [{ ...good, feePlan: "true" }, /feePlan/],
      [{ ...good, feePlan: undefined }, /feePlan/],
    ];
    for (const [b, msg] of cases) refused(await api.create(token, b), msg);
  }, 60_000);

  it("TokenManager2 reverts forged, altered and foreign createToken calls", async () => {
    const [bnb] = ok(await api.config()) as unknown[];
    const creator = (await chain.fundedAccount()) as ReturnType<typeof privateKeyToAccount>;
    const token = await login(creator);
    const imgUrl = ok(await api.upload(token, samplePng())) as string;
    const created = ok(await api.create(token, body(imgUrl, bnb, creator.address))) as Record<
      string,
      Hex
    >;
    const tm = chain.record.contracts.tokenManager2;
    const send = (from: Account, args: Hex, signature: Hex) =>
      chain.wallet(from).writeContract({
        address: tm,
        abi: guideAbi,
        functionName: "createToken",
        args: [args, signature],
        value: parseEther("0.1"),
      });
    // Signed by a key TokenManager2 does not trust.
    const forger = privateKeyToAccount(generatePrivateKey());
    const forged = await forger.signMessage({ message: { raw: created.createArg as Hex } });
    await expect(send(creator, created.createArg as Hex, forged)).rejects.toThrow(/revert/i);
    // One byte of the args changed.
    const arg = created.createArg as Hex;
    const last = arg.slice(-2) === "00" ? "01" : "00";
    await expect(
      send(creator, `${arg.slice(0, -2)}${last}` as Hex, created.signature as Hex),
    ).rejects.toThrow(/revert/i);
    // Another wallet than the one logged in.
    const other = await chain.fundedAccount();
    await expect(send(other, arg, created.signature as Hex)).rejects.toThrow(/revert/i);
    // The untouched pair from its own wallet still goes through.
    await chain.mined(await send(creator, arg, created.signature as Hex));
  }, 60_000);
});
