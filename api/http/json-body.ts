import type { z } from "@hono/zod-openapi";
import { HttpError, invalidInput } from "../errors.ts";

export type ParseJsonBodyOptions = {
  /** The envelope code of a refusal: `validation_failed`, or the launch's `INVALID_REQUEST`. */
  code?: "validation_failed" | "INVALID_REQUEST";
  /** An empty body is `undefined` (for a schema that makes the body optional). */
  emptyIsAbsent?: boolean;
};

/**
 * Parses a body the route read as text and checks it against `schema`: 400 with one detail per
 * problem, `(root)` when it is not JSON. For the routes that must hold the raw bytes (signed
 * inbound webhooks) or check credentials before the body; every other JSON body is validated by
 * its `createRoute`.
 *
 * @example
 * const body = parseJsonBody(await c.req.text(), PersonaBody);
 */
export function parseJsonBody<T extends z.ZodType>(
  text: string,
  schema: T,
  o: ParseJsonBodyOptions = {},
): z.infer<T> {
  const code = o.code ?? "validation_failed";
  const r = schema.safeParse(parseJson(text, o));
  if (!r.success) throw invalidInput(code, r.error.issues);
  return r.data;
}

/** `text` as JSON, or 400 (`(root)`: not JSON) under `o.code`. */
export function parseJson(text: string, o: ParseJsonBodyOptions = {}): unknown {
  if (text === "" && o.emptyIsAbsent) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(o.code ?? "validation_failed", {
      message: "the body is not JSON",
      details: [{ path: "(root)", message: "not JSON" }],
    });
  }
}
