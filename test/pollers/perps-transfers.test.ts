import { expect, it } from "vitest";
import { ledgerEvents } from "../../jobs/pollers/perps-events.ts";
import type { LedgerUpdate } from "../../services/hyperliquid/protocol.ts";

// what: which side of a venue transfer an account is on: each party's own direction, the
// sender's fee, a sub-account move, and lines that are not the account's (or not whole) left out.

const ME = `0x${"a1".repeat(20)}`;
const PEER = `0x${"b2".repeat(20)}`;
const THIRD = `0x${"c3".repeat(20)}`;
let n = 0;
const line = (delta: Record<string, unknown>): LedgerUpdate => ({
  time: 1_700_000_000_000 + n,
  hash: `0x${(n++).toString(16).padStart(64, "0")}`,
  delta: delta as LedgerUpdate["delta"],
});
const seen = (account: string, lines: LedgerUpdate[]) =>
  ledgerEvents("agent", account, lines).map((e) => [e.eventType, e.data]);

it("books a usdSend out with its fee for the sender and in without it for the receiver", () => {
  // The venue's addresses may come checksummed; the account is compared without case.
  const send = line({
    type: "internalTransfer",
    usdc: "25.5",
    user: ME.toUpperCase().replace("0X", "0x"),
    destination: PEER,
    fee: "1.0",
  });
  expect(seen(ME, [send])).toEqual([
    [
      "perps.transfer.out",
      expect.objectContaining({ kind: "internalTransfer", usdc: "25.5", fee: "1.0", peer: PEER }),
    ],
  ]);
  // Two agents of the service on both ends: each side's event is stored, under its own id.
  const ids = [ME, PEER].map((a) => ledgerEvents("agent", a, [send])[0]?.sourceEventId);
  expect(new Set(ids).size).toBe(2);
  const [received] = seen(PEER, [send]);
  expect(received?.[0]).toBe("perps.transfer.in");
  expect(received?.[1]).toMatchObject({ usdc: "25.5", peer: ME });
  expect(received?.[1]).not.toHaveProperty("fee");
});

it("books sub-account and spot moves by direction, and leaves out lines that are not the account's", () => {
  const lines = [
    line({ type: "subAccountTransfer", usdc: "7", user: PEER, destination: ME }),
    line({ type: "accountClassTransfer", usdc: "3", toPerp: false }),
    line({ type: "internalTransfer", usdc: "9", user: PEER, destination: THIRD, fee: "1" }),
    line({ type: "internalTransfer", usdc: "9", user: ME, destination: ME, fee: "1" }),
    line({ type: "subAccountTransfer", user: ME, destination: PEER }), // no amount
    line({ type: "send", user: ME, destination: PEER, usdcValue: "4" }),
  ];
  expect(seen(ME, lines).map(([type, data]) => [type, (data as { usdc: string }).usdc])).toEqual([
    ["perps.transfer.in", "7"],
    ["perps.transfer.out", "3"],
  ]);
});

it("reads sendAsset lines by balance: the default perp dex is the account's perps, spot and other dexes are not", () => {
  const send = (
    user: string,
    sourceDex: string,
    destination: string,
    destinationDex: string,
    more = {},
  ) =>
    line({
      type: "send",
      user,
      destination,
      sourceDex,
      destinationDex,
      token: "USDC",
      amount: "10",
      usdcValue: "10",
      fee: "1",
      nativeTokenFee: "0",
      nonce: n,
      feeToken: "USDC",
      ...more,
    });
  const lines = [
    send(ME, "", PEER, "spot"), // out to another account, with its fee
    send(PEER, "spot", ME, ""), // in from another account
    send(ME, "", ME, "spot"), // to its own spot
    send(ME, "spot", ME, ""), // from its own spot
    send(ME, "", ME, "xyz"), // to another perp dex of its own
    send(ME, "", PEER, "", { feeToken: "HYPE" }), // a fee not paid in USDC
    send(ME, "", ME, ""), // to itself: nothing moved
    send(ME, "spot", PEER, ""), // from its spot: its perps balance untouched
    send(ME, "", PEER, "", { token: "HYPE" }), // not USDC
  ];
  expect(
    seen(ME, lines).map(([type, d]) => {
      const x = d as { usdc: string; fee?: string; peer?: string; via?: string };
      return [type, x.usdc, x.fee, x.peer ?? `via ${x.via}`];
    }),
  ).toEqual([
    ["perps.transfer.out", "10", "1", PEER],
    ["perps.transfer.in", "10", undefined, PEER],
    ["perps.transfer.out", "10", "1", "via spot"],
    ["perps.transfer.in", "10", undefined, "via spot"],
    ["perps.transfer.out", "10", "1", "via xyz"],
    ["perps.transfer.out", "10", undefined, PEER],
  ]);
});
