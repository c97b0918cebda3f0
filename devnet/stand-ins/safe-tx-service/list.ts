import type { MultisigTransaction } from "../../../services/safe-tx-service/protocol.ts";

export type Query = Record<string, string | undefined>;
const MAX_LIMIT = 200;
const DEFAULT_LIMIT = 100;

const bool = (v: string) => v === "true" || v === "True" || v === "1";

/**
 * A page of `GET /api/v{1,2}/safes/{address}/multisig-transactions/` with the service's
 * filters (history/filters.py: executed, trusted, has_confirmations, nonce and its bounds,
 * safe_tx_hash, modified bounds), ordering (default `-nonce,-created`) and limit/offset paging.
 * v1 writes `nonce`, `safeTxGas` and `baseGas` as numbers, v2 as strings.
 *
 * @example
 * listTransactions(rows, { executed: "false", nonce__gte: "3" }, new URL(req.url), 2);
 */
export function listTransactions(
  all: readonly MultisigTransaction[],
  q: Query,
  url: URL,
  version: 1 | 2,
) {
  let rows = [...all];
  if (q.executed !== undefined)
    rows = rows.filter((t) => t.isExecuted === bool(q.executed as string));
  if (q.trusted !== undefined) rows = rows.filter((t) => t.trusted === bool(q.trusted as string));
  if (q.has_confirmations !== undefined) {
    rows = rows.filter((t) => t.confirmations.length > 0 === bool(q.has_confirmations as string));
  }
  if (q.safe_tx_hash !== undefined) {
    rows = rows.filter((t) => t.safeTxHash === q.safe_tx_hash?.toLowerCase());
  }
  const nonce = (t: MultisigTransaction) => BigInt(t.nonce);
  const bounds: [string, (a: bigint, b: bigint) => boolean][] = [
    ["nonce", (a, b) => a === b],
    ["nonce__gte", (a, b) => a >= b],
    ["nonce__gt", (a, b) => a > b],
    ["nonce__lte", (a, b) => a <= b],
    ["nonce__lt", (a, b) => a < b],
  ];
  for (const [key, ok] of bounds) {
    const v = q[key];
    if (v !== undefined && /^\d+$/.test(v)) rows = rows.filter((t) => ok(nonce(t), BigInt(v)));
  }
  const since = q.modified__gte ?? q.modified__gt;
  if (since !== undefined) rows = rows.filter((t) => Date.parse(t.modified) >= Date.parse(since));
  const until = q.modified__lte ?? q.modified__lt;
  if (until !== undefined) rows = rows.filter((t) => Date.parse(t.modified) <= Date.parse(until));

  const keys = (q.ordering ?? "-nonce,-created").split(",").filter(Boolean);
  const value = (t: MultisigTransaction, key: string) =>
    key === "modified"
      ? Date.parse(t.modified)
      : key === "created"
        ? Date.parse(t.submissionDate)
        : Number(t.nonce);
  rows.sort((a, b) => {
    for (const k of keys) {
      const key = k.replace(/^-/, "");
      const d = (value(a, key) - value(b, key)) * (k.startsWith("-") ? -1 : 1);
      if (d !== 0) return d;
    }
    return 0;
  });

  const limit = Math.min(Number(q.limit ?? DEFAULT_LIMIT) || DEFAULT_LIMIT, MAX_LIMIT);
  const offset = Number(q.offset ?? 0) || 0;
  const at = (o: number) => {
    const u = new URL(url);
    u.searchParams.set("limit", String(limit));
    u.searchParams.set("offset", String(o));
    return u.toString();
  };
  const page = rows.slice(offset, offset + limit);
  return {
    count: rows.length,
    countUniqueNonce: new Set(rows.map((r) => r.nonce)).size,
    next: offset + limit < rows.length ? at(offset + limit) : null,
    previous: offset > 0 ? at(Math.max(0, offset - limit)) : null,
    results:
      version === 2
        ? page
        : page.map((t) => ({
            ...t,
            nonce: Number(t.nonce),
            safeTxGas: Number(t.safeTxGas),
            baseGas: Number(t.baseGas),
          })),
  };
}
