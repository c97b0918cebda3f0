import { HttpError } from "../errors.ts";

/** A position in a list ordered by (blockNumber, logIndex): the last item of a page. */
export type ChainPosition = { blockNumber: bigint; logIndex: number };

/**
 * Encodes a position as an opaque cursor (base64url), so clients do not build cursors and
 * the order key may change without breaking them.
 *
 * @example
 * encodeCursor({ blockNumber: 120n, logIndex: 3 }); // "MTIwOjM"
 */
export function encodeCursor(p: ChainPosition): string {
  return Buffer.from(`${p.blockNumber}:${p.logIndex}`).toString("base64url");
}

/** The 400 `validation_failed` of a cursor this API did not issue (or one a client changed). */
export function malformedCursor(): HttpError {
  return new HttpError("validation_failed", {
    message: "cursor is malformed: pass back a nextCursor exactly as received",
    details: [{ path: "cursor", message: "not a cursor issued by this API" }],
  });
}

/**
 * Decodes a cursor from `encodeCursor`; anything else is a 400 `validation_failed`.
 *
 * @example
 * decodeCursor("MTIwOjM"); // { blockNumber: 120n, logIndex: 3 }
 */
export function decodeCursor(cursor: string): ChainPosition {
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor)
    ? Buffer.from(cursor, "base64url").toString()
    : "";
  const m = /^(\d{1,20}):(\d{1,9})$/.exec(text);
  if (!m?.[1] || !m[2]) {
    throw malformedCursor();
  }
  return { blockNumber: BigInt(m[1]), logIndex: Number(m[2]) };
}

/**
 * One page of rows read with `limit + 1` (the extra row only says that a next page exists),
 * and the cursor of its last row, or null on the last page.
 *
 * @example
 * const { page, nextCursor } = pageOf(rows, q.limit, (last) => encodeCursor(last));
 */
export function pageOf<T>(
  rows: readonly T[],
  limit: number,
  cursorOf: (last: T) => string,
): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, nextCursor: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}
