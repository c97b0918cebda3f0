import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ErrorEnvelope, jsonResponse } from "./schemas.ts";

type Definition = OpenAPIHono<AppEnv>["openAPIRegistry"]["definitions"][number];
type Route = Extract<Definition, { type: "route" }>["route"];

/**
 * What every operation can answer besides its own statuses, because a layer in front of every
 * route answers it: the server's header limit (431), an unexpected failure (500), the per-client
 * limiter (429, except for routes registered before it), the body limit and the JSON parser
 * (413, 415 and 400 where a body is accepted), the validators (400 where parameters are), and the
 * credential checks (401 where the operation is protected). Added to the route definitions
 * only where the route does not declare the status itself, so each stays the route's own words.
 */
export function declareCommonResponses(
  app: OpenAPIHono<AppEnv>,
  o: { unlimited: ReadonlySet<Definition> },
): void {
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type !== "route") continue;
    const route = def.route;
    // A route with its own error envelope (the launch endpoint's) renders every error in it,
    // the limiter's and the body limit's included; the header limit is answered by Node.
    const own = Object.entries(route.responses).find(([s]) => s >= "400" && s < "500")?.[1] as
      | { content?: Record<string, { schema: unknown }> }
      | undefined;
    const ownSchema = own?.content?.["application/json"]?.schema;
    const add = (status: number, description: string) => {
      const schema = status !== 431 && ownSchema ? ownSchema : ErrorEnvelope;
      route.responses[status] ??= jsonResponse(description, schema as typeof ErrorEnvelope);
    };
    if (hasBody(route)) {
      add(400, "validation_failed: the body is malformed or does not match the schema");
      add(413, "payload_too_large: the body is over the size limit (256 KB)");
      add(415, "unsupported_media_type: the body is not sent as application/json");
    }
    if (route.request?.params || route.request?.query || route.request?.headers)
      add(400, "validation_failed: a parameter is malformed or out of range");
    if ((route.security ?? []).length > 0) add(401, "Credentials missing or not valid");
    if (!o.unlimited.has(def))
      add(429, "rate_limited: too many requests; wait `Retry-After` seconds");
    add(431, "headers_too_large: the request line and headers are over 16 KB");
    add(500, "internal_error: a server-side problem; retry with backoff");
  }
}

function hasBody(route: Route): boolean {
  return route.request?.body !== undefined;
}
