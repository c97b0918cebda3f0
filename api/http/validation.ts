import type { Context } from "hono";
import { HttpError, invalidInput } from "../errors.ts";

type ValidationResult = { target: string } & (
  | { success: true }
  | { success: false; error: { issues: Parameters<typeof invalidInput>[1] } }
);

/**
 * What a route's validators (parameters, query, headers, JSON body) answer when the input
 * fails: 400 under `code` with one detail per problem. A route answers a body sent as anything
 * but JSON with 415 before this (the media-type gate of `app.openapi`), so a JSON body failing
 * with no Content-Type means no body at all: that is said once, not as a list of every
 * required field.
 *
 * @example
 * new OpenAPIHono({ defaultHook: validationHook("validation_failed") });
 */
export function validationHook(code: "validation_failed" | "INVALID_REQUEST") {
  return (result: ValidationResult, c: Context): undefined => {
    if (result.success) return undefined;
    if (result.target === "json" && !c.req.header("content-type")) {
      throw new HttpError(code, {
        message: "the request has no body: send it as JSON with Content-Type: application/json",
        details: [{ path: "(root)", message: "a JSON body is required" }],
      });
    }
    throw invalidInput(code, result.error.issues);
  };
}
