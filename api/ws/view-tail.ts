import { createHash } from "node:crypto";
import type { Sql } from "../../lib/db/client.ts";
import { isMissingRelation, view } from "../../lib/db/views.ts";
import { WS_LIMITS } from "../limits.ts";
import { comparePositions, justBefore, type Position, type Stream } from "./cursor.ts";

export type Row = Record<string, unknown>;

/** One indexed view read in position order: which columns make the position and the key. */
export type ViewStreamSpec = {
  stream: Stream;
  view: string;
  blockColumn: string;
  indexColumn: string;
  keyColumn: string;
  /** The channel id an item belongs to (token address, vault, or "" for the factory). */
  route: (row: Row) => string;
  /** What a `removed` message names, kept for as long as the item may still be reorged. */
  ref: (row: Row) => Record<string, unknown>;
};

/** A row of the reorg window this tailer has seen (handed on, or there when it started). */
export type SentItem = {
  key: string;
  position: Position;
  route: string;
  ref: Record<string, unknown>;
};

export type TailBatch = {
  added: { row: Row; position: Position; route: string }[];
  removed: SentItem[];
  /** Set when a reorg moved the stream back: positions after this are re-read. */
  rewoundTo?: Position;
  /** A full batch was read: read again at once. */
  more?: boolean;
};

export const positionOf = (spec: ViewStreamSpec, row: Row): Position => [
  BigInt(row[spec.blockColumn] as string),
  BigInt(row[spec.indexColumn] as string),
];

/**
 * Follows one of Ponder's views from the present on, for every socket of this process: hands on
 * new rows in position order and, by comparing the rows of the reorg window it has seen with
 * what the view now holds, the rows a reorg removed (and rows it added behind the cursor).
 * State is a cursor into Postgres and that window, so every API process sees the same stream.
 */
export class ViewTail {
  cursor: Position | undefined;
  private readonly recent = new Map<string, SentItem>();
  private readonly sql: Sql;
  private readonly schema: string;
  readonly spec: ViewStreamSpec;

  constructor(sql: Sql, schema: string, spec: ViewStreamSpec) {
    this.sql = sql;
    this.schema = schema;
    this.spec = spec;
  }

  /** Reads what is new since the last call; undefined while the views are not published. */
  async read(): Promise<TailBatch | undefined> {
    try {
      if (this.cursor === undefined) {
        await this.present();
        return { added: [], removed: [] };
      }
      const batch: TailBatch = { added: [], removed: [] };
      await this.checkReorg(batch);
      await this.readNew(batch);
      this.prune();
      return batch;
    } catch (error) {
      if (isMissingRelation(error)) return undefined;
      throw error;
    }
  }

  private get v() {
    return view(this.sql, this.schema, this.spec.view);
  }

  private cols() {
    const s = this.spec;
    return this.sql`(${this.sql(s.blockColumn)}, ${this.sql(s.indexColumn)})`;
  }

  /** Oldest block the reorg check covers: everything there is tracked, sent or not. */
  private windowStart(): bigint {
    return (this.cursor?.[0] ?? 0n) - BigInt(WS_LIMITS.reorgWindowBlocks);
  }

  private remember(row: Row, position: Position): SentItem {
    const s = this.spec;
    const item = { key: String(row[s.keyColumn]), position, route: s.route(row), ref: s.ref(row) };
    this.recent.set(item.key, item);
    return item;
  }

  /** The newest position, with the rows of the reorg window before it taken as already seen. */
  private async present(): Promise<Position> {
    const s = this.spec;
    const [top] = await this.sql<
      Row[]
    >`select ${this.sql(s.blockColumn)}, ${this.sql(s.indexColumn)}
      from ${this.v} order by ${this.cols()} desc limit 1`;
    this.cursor = top ? positionOf(s, top) : [0n, -1n];
    const rows = await this.sql<Row[]>`select * from ${this.v} ${this.inWindow()}`;
    for (const r of rows) this.remember(r, positionOf(s, r));
    return this.cursor;
  }

  /** Rows of the window at or before the cursor. */
  private inWindow() {
    const c = this.cursor as Position;
    return this
      .sql`where ${this.sql(this.spec.blockColumn)} >= ${this.windowStart().toString()}::numeric
      and ${this.cols()} <= (${c[0].toString()}::numeric, ${c[1].toString()}::numeric)`;
  }

  /**
   * Compares a fingerprint of the window (keys and positions) with what this tailer has seen;
   * only on a mismatch reads the window's keys to find what a reorg removed, moved or added.
   */
  private async checkReorg(batch: TailBatch) {
    const s = this.spec;
    const c = this.cursor as Position;
    // Items past the cursor (still to be re-read after a rewind) are checked once it passes them.
    const seen = [...this.recent.values()]
      .filter((x) => comparePositions(x.position, c) <= 0)
      .sort((a, b) => comparePositions(a.position, b.position));
    const where = this.inWindow();
    const [fp] = await this.sql<{ h: string }[]>`
      select md5(coalesce(string_agg(${this.sql(s.keyColumn)}::text || '@' || ${this.sql(s.blockColumn)}::text || ':' || ${this.sql(s.indexColumn)}::text, ',' order by ${this.cols()}), '')) as h
      from ${this.v} ${where}`;
    const local = createHash("md5")
      .update(seen.map((x) => `${x.key}@${x.position[0]}:${x.position[1]}`).join(","))
      .digest("hex");
    if (fp?.h === local) return;
    const rows = await this.sql<Row[]>`select ${this.sql(s.keyColumn)}, ${this.sql(s.blockColumn)},
      ${this.sql(s.indexColumn)} from ${this.v} ${where}`;
    const now = new Map(rows.map((r) => [String(r[s.keyColumn]), positionOf(s, r)]));
    let back: Position | undefined;
    const earlier = (p: Position) => {
      if (!back || comparePositions(p, back) < 0) back = p;
    };
    for (const x of seen) {
      const p = now.get(x.key);
      if (p && comparePositions(p, x.position) === 0) continue;
      batch.removed.push(x);
      this.recent.delete(x.key);
      earlier(x.position);
    }
    for (const [key, p] of now) if (!this.recent.has(key)) earlier(p);
    if (back) {
      batch.rewoundTo = justBefore(back);
      if (comparePositions(batch.rewoundTo, this.cursor as Position) < 0)
        this.cursor = batch.rewoundTo;
    }
  }

  private async readNew(batch: TailBatch) {
    const s = this.spec;
    const c = this.cursor as Position;
    const rows = await this.sql<Row[]>`select * from ${this.v}
      where ${this.cols()} > (${c[0].toString()}::numeric, ${c[1].toString()}::numeric)
      order by ${this.cols()} limit ${WS_LIMITS.tailBatch}`;
    batch.more = rows.length >= WS_LIMITS.tailBatch;
    for (const row of rows) {
      const position = positionOf(s, row);
      const key = String(row[s.keyColumn]);
      this.cursor = position;
      const seen = this.recent.get(key);
      if (seen && comparePositions(seen.position, position) === 0) continue;
      const { route } = this.remember(row, position);
      batch.added.push({ row, position, route });
    }
  }

  /** Forgets what fell out of the reorg window. */
  private prune() {
    const start = this.windowStart();
    for (const [key, x] of this.recent) if (x.position[0] < start) this.recent.delete(key);
  }
}
