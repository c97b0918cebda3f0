/**
 * Positions and cursors of the WebSocket bridge. Every item of a channel kind has a position
 * in one total order: trades, launch events and dividend claims (block, log index), launches
 * (block, launch id), agent events (writing transaction id, row id, the commit-safe order of
 * `tailAgentEvents`).
 */
export type Position = readonly [bigint, bigint];

/** The kinds of ordered streams; each channel reads one. */
export const STREAMS = {
  trade: "t",
  launchEvent: "l",
  launch: "f",
  agent: "a",
  dividendClaim: "d",
} as const;
export type Stream = keyof typeof STREAMS;

/** -1 < 0 < 1 as `a` sorts before, with or after `b`. */
export function comparePositions(a: Position, b: Position): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return 0;
}

/** The position just before `p`, so a resume from it replays `p` itself. */
export function justBefore(p: Position): Position {
  return [p[0], p[1] - 1n];
}

/**
 * An opaque cursor naming a position of a stream (base64url), as every message carries it.
 *
 * @example
 * encodeCursor("trade", [120n, 3n]); // "dC4xMjAuMw"
 */
export function encodeCursor(stream: Stream, p: Position): string {
  return Buffer.from(`${STREAMS[stream]}.${p[0]}.${p[1]}`).toString("base64url");
}

/**
 * The stream and position of a cursor from `encodeCursor`, or undefined for anything else.
 *
 * @example
 * decodeCursor("dC4xMjAuMw"); // { stream: "trade", position: [120n, 3n] }
 */
export function decodeCursor(cursor: string): { stream: Stream; position: Position } | undefined {
  if (!/^[A-Za-z0-9_-]{1,96}$/.test(cursor)) return undefined;
  const m = /^([tlfad])\.(\d{1,20})\.(-1|\d{1,20})$/.exec(
    Buffer.from(cursor, "base64url").toString(),
  );
  if (!m?.[1] || !m[2] || !m[3]) return undefined;
  const stream = (Object.keys(STREAMS) as Stream[]).find((s) => STREAMS[s] === m[1]);
  return stream && { stream, position: [BigInt(m[2]), BigInt(m[3])] };
}
