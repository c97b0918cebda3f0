// The `volume24h` and `trending` orders of `/tokens`, kept per process and indexed generation.
// Their keys are an aggregate over every token that traded in the last 24 hours (100,000 tokens:
// over a second), so they are computed once per generation and pages are cut from memory.
import type { Sql } from "../../lib/db/client.ts";
import type { IndexedState } from "../http/indexed-block.ts";
import { READ_CACHE_LIMITS } from "../limits.ts";
import { rankingQuery, type TokenKeyset } from "./token-query.ts";

export type RankedToken = { address: string; k: bigint; status: string };

/** Every token, largest key first, ties by address descending; `gen` is the generation read. */
export type Ranking = { gen: number; readAt: number; rows: RankedToken[] };

export type RankedSort = "volume24h" | "trending";

/** -1, 0, 1 as (k, address) of `r` is below, equal to or above `key`. */
function compare(r: RankedToken, key: { k: bigint; a: string }): number {
  if (r.k !== key.k) return r.k < key.k ? -1 : 1;
  return r.address < key.a ? -1 : r.address > key.a ? 1 : 0;
}

/**
 * A page of a ranking in `desc` or ascending order, after an optional keyset, past `offset`
 * matches, keeping rows `keep` accepts. Returns up to `limit + 1` rows (one more tells that a
 * next page exists) and the number of rows `keep` accepts in all.
 */
export function pageOf(
  ranking: Ranking,
  o: {
    desc: boolean;
    after?: TokenKeyset;
    offset: number;
    limit: number;
    keep: (r: RankedToken) => boolean;
  },
): { rows: RankedToken[]; total: number } {
  const rows = ranking.rows;
  const key = o.after ? { k: BigInt(o.after.k), a: o.after.a } : undefined;
  // First index whose row is below the key (rows are descending).
  let lo = 0;
  let hi = rows.length;
  if (key) {
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(rows[mid] as RankedToken, key) < 0) hi = mid;
      else lo = mid + 1;
    }
  }
  const out: RankedToken[] = [];
  let skip = o.offset;
  const visit = (r: RankedToken) => {
    if (!o.keep(r)) return true;
    if (skip > 0) {
      skip--;
      return true;
    }
    out.push(r);
    return out.length <= o.limit;
  };
  if (o.desc) {
    for (let i = key ? lo : 0; i < rows.length && visit(rows[i] as RankedToken); i++);
  } else {
    // Ascending: above the key means before `first index not above it`.
    let end = rows.length;
    if (key) {
      let l = 0;
      let h = rows.length;
      while (l < h) {
        const mid = (l + h) >> 1;
        if (compare(rows[mid] as RankedToken, key) <= 0) h = mid;
        else l = mid + 1;
      }
      end = l;
    }
    for (let i = end - 1; i >= 0 && visit(rows[i] as RankedToken); i--);
  }
  let total = 0;
  for (const r of rows) if (o.keep(r)) total++;
  return { rows: out, total };
}

/**
 * Reads a ranking in one transaction tuned for it: the per-token aggregate over 100,000 tokens
 * needs more than the default 4 MB of `work_mem` (it spilled to disk in 21 batches), and a
 * parallel plan built the same aggregate once per worker (`loops=3` on 2 cores), so it runs
 * serial with enough memory.
 */
export function loadRanking(sql: Sql, schema: string, sort: RankedSort, now: number) {
  return sql.begin(async (tx) => {
    await tx`select set_config('work_mem', ${READ_CACHE_LIMITS.rankingWorkMem}, true),
      set_config('max_parallel_workers_per_gather', '0', true)`;
    return rankingQuery(tx as unknown as Sql, schema, sort, now);
  }) as Promise<{ address: string; k: string; status: string }[]>;
}

export type Rankings = {
  /**
   * The ranking of `sort` at `state`'s generation. When that takes longer than
   * `rankingWaitMs` and a ranking younger than `rankingMaxStaleMs` exists, that one is served
   * and the new one lands for later requests (one computation per sort at a time).
   */
  get(sort: RankedSort, state: IndexedState, now: number): Promise<Ranking>;
};

/**
 * Rankings of one API process.
 *
 * @example
 * const ranking = await rankings.get("trending", await tracker.current(), now);
 */
export function createRankings(sql: Sql, schema: string): Rankings {
  const slots = new Map<RankedSort, { ranking?: Ranking; computing?: Promise<Ranking> }>();
  return {
    async get(sort, state, now) {
      let slot = slots.get(sort);
      if (!slot) {
        slot = {};
        slots.set(sort, slot);
      }
      const s = slot;
      if (s.ranking && s.ranking.gen >= state.gen) return s.ranking;
      const computing =
        s.computing && (s.computing as Promise<Ranking> & { gen?: number }).gen === state.gen
          ? s.computing
          : undefined;
      const fresh =
        computing ??
        (() => {
          const readAt = Date.now();
          const p = loadRanking(sql, schema, sort, now).then((rows): Ranking => {
            const r = {
              gen: state.gen,
              readAt,
              rows: rows.map((x) => ({ address: x.address, k: BigInt(x.k), status: x.status })),
            };
            if (!s.ranking || r.gen > s.ranking.gen) s.ranking = r;
            return r;
          });
          const tagged = Object.assign(
            p.finally(() => {
              if (s.computing === tagged) s.computing = undefined;
            }),
            { gen: state.gen },
          );
          s.computing = tagged;
          return tagged;
        })();
      const old = s.ranking;
      if (!old || Date.now() - old.readAt > READ_CACHE_LIMITS.rankingMaxStaleMs) return fresh;
      fresh.catch(() => {});
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<Ranking>((resolve) => {
        timer = setTimeout(() => resolve(old), READ_CACHE_LIMITS.rankingWaitMs);
      });
      try {
        return await Promise.race([fresh, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
