/**
 * The operations of an OpenAPI 3.1 document, as the fuzzer needs them: every (method, path)
 * with its parameters, body, security and declared responses. Read from the served
 * `/openapi.json`, so a route added anywhere is fuzzed without being listed.
 */

export type JsonSchema = Record<string, unknown>;

export type Parameter = {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  schema: JsonSchema;
};

export type Operation = {
  /** `GET /v2/agents/{agent}` */
  id: string;
  method: string;
  /** The path template as the document spells it. */
  path: string;
  params: Parameter[];
  body?: { required: boolean; contentType: string; schema: JsonSchema };
  /** Security scheme names the operation accepts (any one of them); empty: open. */
  security: string[];
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
};

export type OpenApiDocument = {
  paths: Record<string, Record<string, RawOperation>>;
  components?: {
    schemas?: Record<string, JsonSchema>;
    securitySchemes?: Record<string, SecurityScheme>;
  };
  security?: Record<string, string[]>[];
};

export type SecurityScheme = {
  type: string;
  scheme?: string;
  in?: "header" | "query" | "cookie";
  name?: string;
};

type RawOperation = {
  parameters?: { name: string; in: Parameter["in"]; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  security?: Record<string, string[]>[];
  responses?: Operation["responses"];
};

const METHODS = ["get", "post", "put", "patch", "delete"];

/**
 * Every operation of the document, sorted by id so a seed replays the same cases.
 *
 * @example
 * const ops = operations(await (await fetch(`${url}/openapi.json`)).json());
 */
export function operations(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const raw = item[method];
      if (!raw) continue;
      const params = (raw.parameters ?? []).map((p) => ({
        name: p.name,
        in: p.in,
        required: p.required ?? p.in === "path",
        schema: resolve(doc, p.schema ?? {}),
      }));
      const content = Object.entries(raw.requestBody?.content ?? {})[0];
      const security = (raw.security ?? doc.security ?? []).flatMap((s) => Object.keys(s));
      out.push({
        id: `${method.toUpperCase()} ${path}`,
        method,
        path,
        params,
        body: content
          ? {
              required: raw.requestBody?.required ?? false,
              contentType: content[0],
              schema: resolve(doc, content[1].schema ?? {}),
            }
          : undefined,
        security,
        responses: raw.responses ?? {},
      });
    }
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/** A schema with every local `$ref` replaced by its target (cycles cut at depth 8). */
export function resolve(doc: OpenApiDocument, schema: unknown, depth = 0): JsonSchema {
  if (Array.isArray(schema))
    return schema.map((s) => resolve(doc, s, depth)) as unknown as JsonSchema;
  if (!schema || typeof schema !== "object") return schema as JsonSchema;
  const s = schema as JsonSchema;
  if (typeof s.$ref === "string") {
    if (depth > 8) return {};
    const name = s.$ref.replace("#/components/schemas/", "");
    return resolve(doc, doc.components?.schemas?.[name] ?? {}, depth + 1);
  }
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(s)) {
    out[k] = k === "example" || k === "examples" ? v : resolve(doc, v, depth);
  }
  return out;
}

/** The declared response entry for a status: the exact code, then `4XX`/`5XX`, then `default`. */
export function declaredResponse(op: Operation, status: number) {
  return (
    op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default
  );
}
