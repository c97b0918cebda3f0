import { pino } from "pino";
import { type Hex, zeroAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSafeTxServiceStandIn } from "../../../devnet/stand-ins/safe-tx-service/start.ts";
import { UpstreamError } from "../../../services/http.ts";
import { createSafeTxServiceClient } from "../../../services/safe-tx-service/client.ts";
import { SafeApiKit } from "../../../services/safe-tx-service/kits.ts";
import { safeTxHash } from "../../../services/safe-tx-service/protocol.ts";
import { type ReplayServer, replayServer } from "../replay.ts";
import { type Recorded, recorded, shapeDiff } from "../shape.ts";

// Answers recorded out of the Safe Transaction Service's source (each fixture names the
// serializer it was built from): our client and api-kit must read them as the service means
// them, and the stand-in must answer in the same shapes. A change on either side fails here.

type Tx = Record<string, unknown> & { safeTxHash: string; confirmations: object[] };
const fx = <B = Record<string, unknown>>(name: string) =>
  recorded<B>(new URL(".", import.meta.url), name);
const SAFE = "0xc318aE71DF18DAfd8FbD063284586ea242aa3D51";

let server: ReplayServer;
let url = "";
let routes: Record<string, Recorded> = {};
beforeAll(async () => {
  // The recorded service: answers each path with its fixture (query strings ignored).
  server = await replayServer((req, res) => {
    const path = (req.url ?? "").split("?")[0] as string;
    // Django's APPEND_SLASH, as the service answers a path without its slash.
    if (!path.endsWith("/") && routes[`${path}/`]) {
      res.writeHead(301, { location: `${path}/` });
      res.end();
      return;
    }
    const f = routes[path];
    res.writeHead(f?.response.status ?? 599, { "content-type": "application/json" });
    res.end(JSON.stringify(f?.response.body ?? { detail: `no fixture for ${path}` }));
  });
  url = server.url;
});
afterAll(() => server.close());

const replay = (...names: string[]) => {
  routes = Object.fromEntries(
    names.map((n) => {
      const f = fx(n);
      return [f.request.path.split("?")[0], f];
    }),
  );
};
const kit = () => new SafeApiKit({ chainId: 56n, txServiceUrl: `${url}/api` });

describe("our client and api-kit read the service's recorded answers", () => {
  it("a page of multisig transactions is stored with every field needed to execute it", async () => {
    replay("multisig-list");
    const client = createSafeTxServiceClient({ apiUrl: url, timeoutMs: 5_000 });
    const page = await client.multisigTransactions(SAFE, {
      modifiedGte: new Date(0),
      limit: 100,
      offset: 0,
    });
    const tx = fx("multisig-transaction").response.body as Tx;
    expect(page.count).toBe(1);
    expect(page.results[0]).toMatchObject({
      safe: SAFE,
      safeTxHash: tx.safeTxHash,
      nonce: "5",
      safeTxGas: "0",
      baseGas: "0",
      gasPrice: "0",
      gasToken: zeroAddress,
      refundReceiver: zeroAddress,
      isExecuted: false,
      confirmationsRequired: 2,
      trusted: true,
    });
    expect(page.results[0]?.confirmations).toEqual(tx.confirmations);
  });

  it("a 404 {detail} is a rejection naming the status, not a crash", async () => {
    replay("not-found");
    const error = await kit()
      .getTransaction(`0x${"ab".repeat(32)}`)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 404, data: fx("not-found").response.body });
    routes = { [`/api/v2/safes/${SAFE}/multisig-transactions/`]: fx("not-found") };
    const client = createSafeTxServiceClient({ apiUrl: url, timeoutMs: 5_000 });
    const e = await client
      .multisigTransactions(SAFE, { modifiedGte: new Date(0), limit: 1, offset: 0 })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UpstreamError);
    expect(e).toMatchObject({ kind: "rejected" });
  });

  it("api-kit reads service info, Safe info, one transaction and its confirmations", async () => {
    replay("about", "safe-info", "multisig-transaction", "confirmations");
    const api = kit();
    expect(await api.getServiceInfo()).toEqual(fx("about").response.body);
    const info = await api.getSafeInfo(SAFE);
    expect(info).toMatchObject({ address: SAFE, nonce: "5", threshold: 2, version: "1.4.1" });
    expect(info.singleton).toBe(fx("safe-info").response.body.masterCopy);
    const tx = fx("multisig-transaction").response.body as Tx;
    expect(await api.getTransaction(tx.safeTxHash)).toEqual(tx);
    const c = await api.getTransactionConfirmations(tx.safeTxHash);
    expect(c.results).toEqual(tx.confirmations);
  });
});

describe("the stand-in answers in the recorded shapes", () => {
  let s: Awaited<ReturnType<typeof startSafeTxServiceStandIn>>;
  let hash: Hex;
  const owner = privateKeyToAccount(`0x${"11".repeat(32)}`);
  beforeAll(async () => {
    // No chain: every signer counts as an owner (Safe info is compared in devnet/stand-ins/safe-tx-service/sdk.test.ts,
    // which runs one).
    s = await startSafeTxServiceStandIn({
      chainId: 56,
      log: pino({ level: "silent" }),
      // The replay asks a dozen paths back to back, a burst past the hosted API's 5 a second;
      // the shapes are under test here, the limit in stand-in/throttle.test.ts.
      requestsPerSecond: 1_000,
    });
    const t = {
      to: "0x1b56e27094b67FAcB247D55c7C05912Fc4cBFFd2",
      value: "100000000000000000",
      data: null,
      operation: 0,
      safeTxGas: "0",
      baseGas: "0",
      gasPrice: "0",
      gasToken: zeroAddress,
      refundReceiver: zeroAddress,
      nonce: "5",
    } as const;
    hash = safeTxHash(56, SAFE, t);
    const r = await fetch(`${s.url}/api/v2/safes/${SAFE}/multisig-transactions/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        ...t,
        contractTransactionHash: hash,
        sender: owner.address,
        signature: await owner.sign({ hash }),
      }),
    });
    expect(r.status).toBe(201);
  });
  afterAll(() => s?.stop());
  const get = async (path: string) => {
    const r = await fetch(`${s.url}${path}`);
    return { status: r.status, body: (await r.json()) as unknown };
  };
  const same = (name: string, answer: { status: number; body: unknown }) => {
    const f = fx(name);
    expect(answer.status, name).toBe(f.response.status);
    expect(shapeDiff(answer.body, f.response.body, f.optional), name).toEqual([]);
  };

  it("service info, the list, one transaction, its confirmations and the 404", async () => {
    same("about", await get("/api/v1/about/"));
    same(
      "multisig-list",
      await get(`/api/v2/safes/${SAFE}/multisig-transactions/?ordering=modified`),
    );
    same("multisig-transaction", await get(`/api/v2/multisig-transactions/${hash}/`));
    same("confirmations", await get(`/api/v1/multisig-transactions/${hash}/confirmations/`));
    const unknown = await get(`/api/v2/multisig-transactions/0x${"ab".repeat(32)}/`);
    expect(unknown).toEqual({ status: 404, body: fx("not-found").response.body });
  });
});
