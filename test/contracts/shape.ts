import { readFileSync } from "node:fs";

/** A fixture: an answer recorded from a service's reference, and where it was read. */
export type Recorded<B = unknown> = {
  source: string;
  request: { method: string; path: string; body?: unknown };
  response: { status: number; body: B };
  /**
   * Key paths (`results[].dataDecoded`) the reference marks optional or nullable: either side
   * may omit them or write null.
   */
  optional?: string[];
};

/** Reads `<dir>/<name>.json` next to the calling test. */
export const recorded = <B = unknown>(dir: URL, name: string): Recorded<B> =>
  JSON.parse(readFileSync(new URL(`./${name}.json`, dir), "utf8"));

const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/**
 * Where `actual` and `expected` differ in shape: the same keys at every depth, the same JSON
 * type at every key (`optional` paths may be absent or null on either side); arrays compare their first items, and an empty
 * array on either side matches any. Values themselves are not compared.
 *
 * @example
 * expect(shapeDiff(standIn, fixture.response.body)).toEqual([]);
 */
export function shapeDiff(
  actual: unknown,
  expected: unknown,
  optional: readonly string[] = [],
  path = "",
): string[] {
  const at = path || "(root)";
  if ((actual === null || expected === null) && optional.includes(path)) return [];
  if (kind(actual) !== kind(expected)) return [`${at}: ${kind(actual)} vs ${kind(expected)}`];
  if (Array.isArray(actual) && Array.isArray(expected)) {
    if (actual.length === 0 || expected.length === 0) return [];
    return shapeDiff(actual[0], expected[0], optional, `${path}[]`);
  }
  if (kind(actual) !== "object") return [];
  const a = actual as Record<string, unknown>;
  const e = expected as Record<string, unknown>;
  const out: string[] = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(e)])) {
    const p = path ? `${path}.${k}` : k;
    if (!(k in a) || !(k in e)) {
      if (!optional.includes(p)) out.push(`${p}: ${k in a ? "not in the reference" : "missing"}`);
      continue;
    }
    out.push(...shapeDiff(a[k], e[k], optional, p));
  }
  return out;
}
