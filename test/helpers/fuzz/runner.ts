import fc from "fast-check";
import { type CaseKind, type Credentials, caseArb, curl, type FuzzCase } from "./cases.ts";
import { responseProperties } from "./checks.ts";
import { type OpenApiDocument, operations } from "./model.ts";
import { closeSockets, send } from "./send.ts";

export type FuzzOptions = {
  /** Base URL of a running service (its /openapi.json is read). */
  baseUrl: string;
  seed: number;
  /** Cases per operation. */
  runs: number;
  /** Working credentials, fetched again before each operation (a fuzzed logout ends one). */
  credentials?: () => Promise<Credentials>;
  /** Values that must never appear in a response. */
  secrets?: string[];
  /**
   * A fingerprint of the app's tables (rows and content). Taken before and after each
   * request; a refused request (4xx) must leave it unchanged.
   */
  snapshot?: () => Promise<Record<string, string>>;
  /** Extra headers on every request (e.g. `x-forwarded-for` so the per-IP limit does not bite). */
  headers?: () => Record<string, string>;
  /** Only operations whose id matches. */
  only?: RegExp;
  log?: (line: string) => void;
  /** Every case and its answer, one line each (`npm run fuzz -- --trace`). */
  trace?: (line: string) => void;
};

export type OperationResult = {
  op: string;
  cases: number;
  statuses: Record<number, number>;
  kinds: Partial<Record<CaseKind, number>>;
  failure?: { seed: number; path: string; curl: string; problems: string[]; shrunk: FuzzCase };
};

export type FuzzReport = {
  seed: number;
  operations: OperationResult[];
  requests: number;
  failures: OperationResult[];
};

/**
 * Fuzzes every operation of the service's `/openapi.json`: `runs` generated cases each, in a
 * fixed order and from one seed, so a failure replays with the seed (and the fast-check path
 * it prints). A failing operation is shrunk to its smallest failing request, then the run
 * goes on with the next operation.
 */
export async function fuzz(o: FuzzOptions): Promise<FuzzReport> {
  const log = o.log ?? (() => {});
  const doc = (await (await fetch(`${o.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
  const schemes = doc.components?.securitySchemes ?? {};
  const check = responseProperties({ doc, secrets: o.secrets ?? [] });
  const results: OperationResult[] = [];
  let requests = 0;
  try {
    for (const op of operations(doc)) {
      if (o.only && !o.only.test(op.id)) continue;
      const r: OperationResult = { op: op.id, cases: 0, statuses: {}, kinds: {} };
      const credentials = (await o.credentials?.()) ?? {};
      const property = fc.asyncProperty(
        caseArb(op, schemes, credentials),
        async (c): Promise<void> => {
          const before = o.snapshot ? await o.snapshot() : undefined;
          const res = await send(o.baseUrl, { ...c, headers: { ...o.headers?.(), ...c.headers } });
          requests++;
          r.cases++;
          r.kinds[c.kind] = (r.kinds[c.kind] ?? 0) + 1;
          if (!res) return;
          r.statuses[res.status] = (r.statuses[res.status] ?? 0) + 1;
          o.trace?.(
            `${res.status} ${c.kind}/${c.auth} ${c.method} ${c.url.slice(0, 160)} -> ${res.text.slice(0, 200).replace(/\s+/g, " ")}`,
          );
          const problems = check(op, c, res);
          if (before && res.status >= 400 && res.status < 500) {
            const after = await (o.snapshot as () => Promise<Record<string, string>>)();
            for (const [t, v] of Object.entries(after)) {
              if (before[t] !== v) problems.push(`a refused request (${res.status}) changed ${t}`);
            }
          }
          if (problems.length > 0) {
            throw new Error(
              `${res.status} ${res.text.slice(0, 300)}\n  - ${problems.join("\n  - ")}`,
            );
          }
        },
      );
      const details = await fc.check(property, { seed: o.seed, numRuns: o.runs });
      if (details.failed && details.counterexample) {
        const shrunk = details.counterexample[0];
        const message = details.errorInstance instanceof Error ? details.errorInstance.message : "";
        r.failure = {
          seed: details.seed,
          path: details.counterexamplePath ?? "",
          curl: curl(o.baseUrl, shrunk),
          problems: message.split("\n"),
          shrunk,
        };
        log(
          `FAIL ${op.id} (seed ${details.seed}, path ${details.counterexamplePath}; replay: npm run fuzz -- --seed ${o.seed} --only '${op.id}')\n  ${message}\n  ${r.failure.curl}`,
        );
      } else {
        log(`ok   ${op.id}: ${r.cases} cases, statuses ${JSON.stringify(r.statuses)}`);
      }
      results.push(r);
    }
  } finally {
    closeSockets();
  }
  return {
    seed: o.seed,
    operations: results,
    requests,
    failures: results.filter((r) => r.failure),
  };
}

/**
 * A fingerprint of every table of a schema: row count and a hash of the rows, per table,
 * except `skip` (tables written by every request, such as the rate-limit counters).
 */
export function tableFingerprint(
  sql: { unsafe: (q: string) => Promise<Record<string, unknown>[]> },
  schema: string,
  skip: string[],
): () => Promise<Record<string, string>> {
  let query: string | undefined;
  return async () => {
    if (!query) {
      const tables = await sql.unsafe(
        `select table_name as t from information_schema.tables where table_schema = '${schema}' and table_type = 'BASE TABLE' order by 1`,
      );
      const names = tables.map((r) => String(r.t)).filter((t) => !skip.includes(t));
      // "table.column" in `skip`: that column is left out of the table's rows.
      const row = (t: string) => {
        const cols = skip.filter((s) => s.startsWith(`${t}.`)).map((s) => s.slice(t.length + 1));
        return cols.length === 0
          ? "x::text"
          : `(to_jsonb(x) ${cols.map((c) => `- '${c}'`).join(" ")})::text`;
      };
      query = `select ${names
        .map(
          (t) =>
            `(select count(*) || ':' || coalesce(sum(hashtext(${row(t)})), 0) from ${schema}."${t}" x) as "${t}"`,
        )
        .join(", ")}`;
    }
    const [row] = await sql.unsafe(query);
    return Object.fromEntries(Object.entries(row ?? {}).map(([k, v]) => [k, String(v)]));
  };
}
