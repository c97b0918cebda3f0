import fc from "fast-check";
import type { JsonSchema } from "./model.ts";

/** Strings a careless parser trips on: controls, RTL marks, astral and lone surrogates, SQL. */
export const NASTY_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\u202e\u0041\u0042",
  "😀".repeat(3),
  "\ud800",
  "\udfff\ud800",
  "' OR '1'='1",
  "1; DROP TABLE app.agents; --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, literally
  "${jndi:ldap://x}",
  "../../etc/passwd",
  "%00",
  "%2e%2e%2f",
  "<script>alert(1)</script>",
  "__proto__",
  "constructor",
  "\r\nX-Injected: 1",
  "0x",
  "-0",
  "NaN",
  "Infinity",
  "1e999",
  "9".repeat(400),
] as const;

/** Numbers outside what any field should accept, as JSON values or query strings. */
export const BAD_NUMBERS = [
  -1,
  -2147483649,
  2 ** 53 + 1,
  1e21,
  -1e21,
  1.5,
  0.0000001,
  "NaN",
  "Infinity",
  "-Infinity",
  "1e999",
  "0x10",
  " 7 ",
  "07",
  "",
] as const;

const MAX_DEPTH = 5;

/**
 * A fast-check arbitrary for values the schema accepts (best effort: a value it cannot build
 * precisely, such as a pattern with look-arounds, falls back to a plain string). Examples in
 * the schema are picked a third of the time so lookups sometimes hit real rows.
 *
 * @example
 * fc.sample(valueArb({ type: "integer", minimum: 1, maximum: 100 }), 3);
 */
export function valueArb(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const gen = bareArb(schema, depth);
  const examples = [
    ...(schema.example !== undefined ? [schema.example] : []),
    ...(Array.isArray(schema.examples) ? schema.examples : []),
    ...(schema.default !== undefined ? [schema.default] : []),
  ];
  if (examples.length === 0) return gen;
  return fc.oneof(
    { arbitrary: fc.constantFrom(...examples), weight: 1 },
    { arbitrary: gen, weight: 2 },
  );
}

function bareArb(s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH) return fc.constant(null);
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...s.enum);
  for (const key of ["anyOf", "oneOf"] as const) {
    const alts = s[key];
    if (Array.isArray(alts) && alts.length > 0)
      return fc.oneof(...alts.map((a) => valueArb(a as JsonSchema, depth + 1)));
  }
  if (Array.isArray(s.allOf)) return bareArb(mergeAllOf(s), depth);
  const type = s.type;
  if (Array.isArray(type)) {
    return fc.oneof(...type.map((t) => bareArb({ ...s, type: t }, depth)));
  }
  const nullable = s.nullable === true;
  const arb = typedArb(s, type as string | undefined, depth);
  return nullable ? fc.option(arb, { nil: null }) : arb;
}

function typedArb(s: JsonSchema, type: string | undefined, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return stringArb(s);
    case "integer":
    case "number": {
      const min = num(s.minimum) ?? plusOne(num(s.exclusiveMinimum)) ?? -1_000_000;
      const max = num(s.maximum) ?? minusOne(num(s.exclusiveMaximum)) ?? 1_000_000;
      const lo = Math.max(min, Number.MIN_SAFE_INTEGER);
      const hi = Math.min(max, Number.MAX_SAFE_INTEGER);
      if (type === "integer") return fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) });
      return fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true });
    }
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const items = (s.items as JsonSchema | undefined) ?? {};
      const minLength = num(s.minItems) ?? 0;
      const maxLength = Math.min(num(s.maxItems) ?? 4, minLength + 4);
      return fc.array(valueArb(items, depth + 1), { minLength, maxLength });
    }
    case "object":
      return objectArb(s, depth);
    default:
      if (s.properties) return objectArb(s, depth);
      return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
  }
}

function objectArb(s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = (s.required ?? []) as string[];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, v] of Object.entries(props)) model[k] = valueArb(v, depth + 1);
  return fc.record(model, { requiredKeys: required.filter((k) => k in model) });
}

function stringArb(s: JsonSchema): fc.Arbitrary<string> {
  const minLength = num(s.minLength) ?? 0;
  const maxLength = Math.max(minLength, Math.min(num(s.maxLength) ?? 40, minLength + 60));
  switch (s.format) {
    case "date-time":
      return fc
        .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
        .map((d) => d.toISOString());
    case "uri":
    case "url":
      return fc.webUrl();
    case "email":
      return fc.emailAddress();
    case "uuid":
      return fc.uuid();
  }
  if (typeof s.pattern === "string") {
    try {
      const re = new RegExp(s.pattern);
      return fc
        .stringMatching(re)
        .filter((v) => v.length >= minLength && v.length <= Math.max(maxLength, 200));
    } catch {
      // A pattern fast-check cannot generate from: plain strings, the server must refuse them.
    }
  }
  return fc.string({ minLength, maxLength, unit: "grapheme" });
}

/** A value of another JSON type than the schema's (a number where a string goes, ...). */
export function wrongTypeArb(s: JsonSchema): fc.Arbitrary<unknown> {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  const all: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.constantFrom("x", "not-a-number", "true"),
    number: fc.constantFrom(42, -3.25, 0),
    boolean: fc.boolean(),
    object: fc.constantFrom({}, { a: 1 }),
    array: fc.constantFrom([], [1, "a"]),
    null: fc.constant(null),
  };
  const other = Object.entries(all)
    .filter(([t]) => t !== type && !(t === "number" && type === "integer"))
    .map(([, a]) => a);
  return fc.oneof(...other);
}

function mergeAllOf(s: JsonSchema): JsonSchema {
  const parts = s.allOf as JsonSchema[];
  const out: JsonSchema = { type: "object", properties: {}, required: [] };
  for (const p of parts) {
    Object.assign(out.properties as object, p.properties ?? {});
    (out.required as string[]).push(...((p.required as string[]) ?? []));
  }
  return out;
}

const num = (v: unknown) => (typeof v === "number" ? v : undefined);
const plusOne = (v: number | undefined) => (v === undefined ? undefined : v + 1);
const minusOne = (v: number | undefined) => (v === undefined ? undefined : v - 1);
