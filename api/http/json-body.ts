import { HttpError } from "../errors.ts";

/**
 * A body the route read as text, as JSON, or 400 `validation_failed` (`(root)`: not JSON).
 * Only for the routes that must keep the raw bytes to check a signature over them, the signed
 * inbound webhooks (docs/events.md: the signature over the raw body first). Every other JSON
 * body is read and validated by its route's `createRoute` (api/http/validation.ts).
 *
 * @example
 * const event = parseJson(raw);
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError("validation_failed", {
      message: "the body is not JSON",
      details: [{ path: "(root)", message: "not JSON" }],
    });
  }
}
