import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, Response31> }>>;
  components?: { schemas?: Record<string, unknown> };
};
type Response31 = { content?: Record<string, { schema: unknown }> };

/** Validates a whole document against the official OpenAPI 3.1 JSON schema. */
export async function validateOpenApiDocument(doc: unknown) {
  const validator = new Validator();
  return validator.validate(doc as Parameters<Validator["validate"]>[0]);
}

/**
 * Checks a response body against the schema the document declares for (path template,
 * method, status, content type): the generated description must match what is served.
 *
 * @example
 * const check = responseChecker(doc);
 * expect(check("/tokens", "get", 200, body)).toEqual([]);
 */
export function responseChecker(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: "doc", components: doc.components ?? {} });
  const compiled = new Map<string, ReturnType<Ajv2020["compile"]>>();
  return (
    path: string,
    method: string,
    status: number,
    body: unknown,
    type = "application/json",
  ) => {
    const key = `${method} ${path} ${status} ${type}`;
    let validate = compiled.get(key);
    if (!validate) {
      const schema = doc.paths[path]?.[method]?.responses[String(status)]?.content?.[type]?.schema;
      if (!schema) return [`no schema for ${key}`];
      // References point at #/components/...; resolve them inside the "doc" schema.
      const text = JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/');
      validate = ajv.compile(JSON.parse(text));
      compiled.set(key, validate);
    }
    return validate(body)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}
