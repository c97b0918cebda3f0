import fc from "fast-check";
import type { JsonSchema, Operation, SecurityScheme } from "./model.ts";
import { BAD_NUMBERS, NASTY_STRINGS, valueArb, wrongTypeArb } from "./values.ts";

/** What a case does to an otherwise valid request. */
export const CASE_KINDS = [
  "valid",
  "wrong-type",
  "out-of-range",
  "missing-required",
  "oversized-string",
  "oversized-body",
  "unicode",
  "malformed-json",
  "wrong-content-type",
  "duplicate-query",
  "extra-fields",
  "path-junk",
  "big-header",
] as const;
export type CaseKind = (typeof CASE_KINDS)[number];

export type AuthMode = "valid" | "none" | "bad";

/** One generated HTTP request, printable and replayable. */
export type FuzzCase = {
  op: string;
  kind: CaseKind;
  auth: AuthMode;
  method: string;
  /** Path and query, as sent on the request line. */
  url: string;
  headers: Record<string, string>;
  body?: string;
};

/** Working credentials per security scheme name: the headers that authenticate. */
export type Credentials = Record<string, Record<string, string>>;

type Slot = {
  where: "path" | "query" | "header" | "body";
  name: string;
  schema: JsonSchema;
  required: boolean;
};
type Draft = {
  path: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  /** The body as a value, or as raw text once a case has broken it. */
  body?: { value: unknown } | { text: string };
  contentType?: string;
};

/** Larger than Node's 16 KB header limit: the server's own refusal must be the envelope too. */
const BIG_HEADER_BYTES = 20_000;
/** Larger than the API's body limit (256 KB). */
const BIG_BODY_BYTES = 300 * 1024;

/**
 * The arbitrary of one operation's cases: valid requests built from the declared schemas and
 * invalid ones (wrong types, out of range, missing fields, oversized, unicode, malformed JSON,
 * wrong content types, duplicated query parameters, extra fields, junk in the path, a header
 * past the server's limit), each with working, absent or bad credentials.
 *
 * @example
 * fc.sample(caseArb(op, schemes, credentials), 5);
 */
export function caseArb(
  op: Operation,
  schemes: Record<string, SecurityScheme>,
  credentials: Credentials,
): fc.Arbitrary<FuzzCase> {
  const slots = slotsOf(op);
  const kinds = CASE_KINDS.filter((k) => applies(k, op, slots));
  const usable = op.security.filter((s) => credentials[s]);
  const authModes: fc.Arbitrary<AuthMode> =
    op.security.length === 0
      ? fc.constantFrom<AuthMode>("none", "none", "none", "bad")
      : usable.length > 0
        ? fc.constantFrom<AuthMode>("valid", "valid", "valid", "none", "bad")
        : fc.constantFrom<AuthMode>("none", "bad");
  const kindArb = fc.oneof(
    { arbitrary: fc.constant<CaseKind>("valid"), weight: kinds.length },
    { arbitrary: fc.constantFrom(...kinds), weight: kinds.length * 2 },
  );
  return fc
    .tuple(draftArb(op, slots), kindArb, authModes, fc.nat())
    .chain(([draft, kind, auth, pick]) =>
      mutate(kind, draft, slots, pick).map((d) => ({ d, kind, auth, pick })),
    )
    .chain(({ d, kind, auth, pick }) =>
      authHeaders(op, schemes, credentials, auth, pick).map((h) =>
        render(op, kind, auth, { ...d, headers: { ...d.headers, ...h } }),
      ),
    );
}

function slotsOf(op: Operation): Slot[] {
  const slots: Slot[] = op.params
    .filter((p) => p.in !== "cookie")
    .map((p) => ({
      where: p.in as Slot["where"],
      name: p.name,
      schema: p.schema,
      required: p.required,
    }));
  const props = (op.body?.schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (op.body?.schema.required ?? []) as string[];
  for (const [name, schema] of Object.entries(props))
    slots.push({ where: "body", name, schema, required: required.includes(name) });
  return slots;
}

function applies(kind: CaseKind, op: Operation, slots: Slot[]): boolean {
  const json = op.body?.contentType.includes("json") ?? false;
  switch (kind) {
    case "oversized-body":
    case "malformed-json":
    case "wrong-content-type":
    case "extra-fields":
      return json;
    case "duplicate-query":
      return slots.some((s) => s.where === "query");
    case "path-junk":
      return slots.some((s) => s.where === "path");
    case "wrong-type":
    case "out-of-range":
    case "oversized-string":
    case "unicode":
      return slots.length > 0;
    case "missing-required":
      return slots.some((s) => s.required) || (op.body?.required ?? false);
    default:
      return true;
  }
}

function draftArb(op: Operation, slots: Slot[]): fc.Arbitrary<Draft> {
  const params = slots.filter((s) => s.where !== "body");
  const paramArbs = params.map((s) =>
    s.required ? valueArb(s.schema).map((v) => [v]) : fc.option(valueArb(s.schema).map((v) => [v])),
  );
  const bodyArb: fc.Arbitrary<unknown> = op.body
    ? op.body.required
      ? valueArb(op.body.schema)
      : fc.option(valueArb(op.body.schema), { nil: undefined })
    : fc.constant(undefined);
  return fc.tuple(fc.tuple(...paramArbs), bodyArb).map(([values, body]) => {
    const d: Draft = { path: {}, query: [], headers: {} };
    params.forEach((s, i) => {
      const v = values[i] as unknown[] | null;
      if (!v) return;
      put(d, s, v[0]);
    });
    if (op.body && body !== undefined) {
      d.body = { value: body };
      d.contentType = op.body.contentType;
    }
    return d;
  });
}

function put(d: Draft, s: Slot, v: unknown): void {
  if (s.where === "path") d.path[s.name] = pct(text(v));
  // Header values are visible ASCII: anything else Node refuses to send at all.
  else if (s.where === "header") d.headers[s.name] = text(v).replace(/[^\x20-\x7e]/g, "");
  else if (s.where === "query") {
    d.query = d.query.filter(([k]) => k !== s.name);
    if (Array.isArray(v)) for (const x of v) d.query.push([s.name, text(x)]);
    else d.query.push([s.name, text(v)]);
  } else {
    const value = d.body && "value" in d.body ? d.body.value : {};
    const obj = value && typeof value === "object" && !Array.isArray(value) ? value : {};
    d.body = { value: { ...obj, [s.name]: v } };
  }
}

function drop(d: Draft, s: Slot): void {
  if (s.where === "path") d.path[s.name] = "";
  else if (s.where === "header") delete d.headers[s.name];
  else if (s.where === "query") d.query = d.query.filter(([k]) => k !== s.name);
  else if (d.body && "value" in d.body && d.body.value && typeof d.body.value === "object") {
    const { [s.name]: _, ...rest } = d.body.value as Record<string, unknown>;
    d.body = { value: rest };
  }
}

/** Percent-encoding that survives lone surrogates (sent as U+FFFD, as a browser would). */
const pct = (s: string) =>
  encodeURIComponent(
    s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD"),
  );

const text = (v: unknown) =>
  typeof v === "string" ? v : v !== null && typeof v === "object" ? JSON.stringify(v) : String(v);

function with_(d: Draft, change: (e: Draft) => unknown): Draft {
  const e: Draft = { ...d, path: { ...d.path }, query: [...d.query], headers: { ...d.headers } };
  change(e);
  return e;
}

function mutate(kind: CaseKind, base: Draft, slots: Slot[], pick: number): fc.Arbitrary<Draft> {
  const d = with_(base, () => {});
  const slot = <T>(list: T[]) => list[pick % Math.max(1, list.length)];
  const any = slot(slots);
  // Arbitraries map the same draft more than once (shrinking): every map works on a copy.
  const set = (s: Slot | undefined, a: fc.Arbitrary<unknown>) =>
    s ? a.map((v) => with_(d, (e) => put(e, s, v))) : fc.constant(d);
  switch (kind) {
    case "wrong-type":
      return any ? set(any, wrongTypeArb(any.schema)) : fc.constant(d);
    case "out-of-range": {
      const numeric = slots.filter(
        (s) => s.schema.type === "integer" || s.schema.type === "number",
      );
      return set(slot(numeric.length ? numeric : slots), fc.constantFrom(...BAD_NUMBERS));
    }
    case "missing-required": {
      const required = slots.filter((s) => s.required);
      const s = slot(required);
      if (!s || (d.body && pick % 5 === 0)) {
        delete d.body;
        return fc.constant(d);
      }
      drop(d, s);
      return fc.constant(d);
    }
    case "oversized-string":
      return set(any, fc.constant("x".repeat(any?.where === "body" ? 100_000 : 5_000)));
    case "unicode":
      return set(
        any,
        fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.string({ unit: "binary", maxLength: 30 })),
      );
    case "oversized-body": {
      const value = d.body && "value" in d.body ? d.body.value : {};
      d.body = { text: JSON.stringify({ value, padding: "x".repeat(BIG_BODY_BYTES) }) };
      return fc.constant(d);
    }
    case "malformed-json":
      return fc
        .constantFrom("{", '{"a":', "nul", "[1,2", '{"a":1}}', "\u0000", "{'a':1}", "", "[]", "1")
        .map((t) =>
          with_(d, (e) => {
            e.body = { text: t };
            e.contentType ??= "application/json";
          }),
        );
    case "wrong-content-type":
      return fc
        .constantFrom(
          "text/plain",
          "application/xml",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/json; charset=utf-16",
        )
        .map((t) =>
          with_(d, (e) => {
            e.contentType = t;
            e.body ??= { value: {} };
          }),
        );
    case "duplicate-query": {
      const q = slot(slots.filter((s) => s.where === "query")) as Slot;
      return fc
        .oneof(valueArb(q.schema), wrongTypeArb(q.schema))
        .map((v) => with_(d, (e) => e.query.push([q.name, text(v)])));
    }
    case "extra-fields": {
      const value = d.body && "value" in d.body ? d.body.value : {};
      const extra = {
        isAdmin: true,
        role: "admin",
        agentId: "someone-else",
        ownerId: "someone-else",
        status: "active",
        featured: true,
        scopes: ["*"],
        id: 1,
      };
      const obj = value && typeof value === "object" && !Array.isArray(value) ? value : {};
      // `__proto__` as a JSON key: a careless merge would pollute Object.prototype.
      const json = JSON.stringify({ ...extra, ...obj });
      d.body = { text: `{"__proto__":{"polluted":true},${json.slice(1)}` };
      d.contentType ??= "application/json";
      d.query.push(["isAdmin", "true"], ["debug", "1"]);
      return fc.constant(d);
    }
    case "path-junk": {
      const p = slot(slots.filter((s) => s.where === "path")) as Slot;
      return fc
        .constantFrom(
          "..",
          "..%2F..%2Fetc%2Fpasswd",
          "%00",
          "%2F",
          "%ZZ",
          "a".repeat(2000),
          "%F0%9F%98%80",
          "0x",
          "%20",
        )
        .map((junk) => with_(d, (e) => (e.path[p.name] = junk)));
    }
    case "big-header":
      d.headers["x-fuzz-padding"] = "x".repeat(BIG_HEADER_BYTES);
      return fc.constant(d);
    default:
      return fc.constant(d);
  }
}

function authHeaders(
  op: Operation,
  schemes: Record<string, SecurityScheme>,
  credentials: Credentials,
  auth: AuthMode,
  pick: number,
): fc.Arbitrary<Record<string, string>> {
  if (auth === "none") return fc.constant({});
  if (auth === "valid") {
    const usable = op.security.filter((s) => credentials[s]);
    return fc.constant(credentials[usable[pick % usable.length] as string] ?? {});
  }
  const names = op.security.length ? op.security : ["agentKey"];
  const name = names[pick % names.length] as string;
  const scheme = schemes[name] ?? { type: "http", scheme: "bearer" };
  const bad = fc.oneof(
    fc
      .string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 40, maxLength: 40 })
      .map((h) => `agk_${h}`),
    fc.constantFrom("", "x", "agk_", "Bearer", "null", "' OR 1=1 --", "a".repeat(600)),
  );
  return bad.map((v): Record<string, string> => {
    if (scheme.type === "http") return { authorization: `Bearer ${v}` };
    if (scheme.in === "cookie") return { cookie: `${scheme.name}=${encodeURIComponent(v)}` };
    return { [(scheme.name ?? "authorization").toLowerCase()]: v };
  });
}

function render(op: Operation, kind: CaseKind, auth: AuthMode, d: Draft): FuzzCase {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => d.path[name] ?? "");
  const qs = d.query.map(([k, v]) => `${pct(k)}=${pct(v)}`);
  const headers = { ...d.headers };
  let body: string | undefined;
  if (d.body) {
    body = "text" in d.body ? d.body.text : JSON.stringify(d.body.value);
    headers["content-type"] = d.contentType ?? "application/json";
  }
  return {
    op: op.id,
    kind,
    auth,
    method: op.method.toUpperCase(),
    url: qs.length ? `${path}?${qs.join("&")}` : path,
    headers,
    body,
  };
}

/** The case as a curl command line (bodies and headers over 200 characters are abbreviated). */
export function curl(base: string, c: FuzzCase): string {
  const cut = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…(${s.length} chars)` : s);
  const q = (s: string) => `'${cut(s).replaceAll("'", "'\\''")}'`;
  const parts = [`curl -sS -X ${c.method} ${q(base + c.url)}`];
  for (const [k, v] of Object.entries(c.headers)) parts.push(`-H ${q(`${k}: ${v}`)}`);
  if (c.body !== undefined) parts.push(`--data-raw ${q(c.body)}`);
  return parts.join(" ");
}
