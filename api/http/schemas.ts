import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ERROR_STATUS } from "../errors.ts";
import { PAGINATION } from "../limits.ts";

/** `{ok:true, data}`: the success envelope around a payload schema. */
export function okEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ ok: z.literal(true), data });
}

export const ErrorEnvelope = z
  .object({
    ok: z.literal(false),
    error: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS]),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    code: z.string().optional().openapi({
      description: "A finer reason inside `error`: a policy denial's code (docs/policies.md)",
    }),
    launchRequestId: z.string().optional().openapi({
      description:
        "A failed deposit launch (POST /v2/launches): its request's id. The message says what failed in fixed words; quote this id to the operator, who sees the cause",
    }),
    requestId: z.string().optional(),
  })
  .openapi("Error");

const ADDRESS_PATTERN = "^0x[0-9a-fA-F]{40}$";

/** A 20-byte address as the API returns it: lowercase hex. */
export const Address = z
  .string()
  .regex(new RegExp(ADDRESS_PATTERN))
  .openapi({ example: "0x5c952063c7fc8610ffdb798152d69f0b9550762b" });

/** A 20-byte address as the API accepts it: any case, lowercased for lookups. */
export const AddressInput = z
  .string()
  .regex(new RegExp(ADDRESS_PATTERN), "must be a 20-byte hex address (0x + 40 hex digits)")
  .transform((a) => a.toLowerCase() as `0x${string}`)
  .openapi({ pattern: ADDRESS_PATTERN, example: "0x5c952063c7fc8610ffdb798152d69f0b9550762b" });

/** The `address` path parameter of `/tokens/{address}/...` and `/v2/users/{address}/...`. */
export const AddressParams = z.object({ address: AddressInput });

/**
 * The `agent` path parameter of every `/v2/agents/{agent}/...` route: one name, one
 * description. `middleware/agent-path` resolves it to the agent's record.
 */
export const AgentParams = z.object({
  agent: z.string().min(1).max(64).openapi({
    description: "The agent: its token address (0x + 40 hex digits, any case) or its agent id",
    example: "0x5c952063c7fc8610ffdb798152d69f0b9550762b",
  }),
});

export const TxHash = z
  .string()
  .regex(/^0x[0-9a-f]{64}$/)
  .openapi({ example: `0x${"ab".repeat(32)}` });

/** An amount in wei (or any integer unit) as a decimal string: JSON numbers lose precision. */
export const Wei = z
  .string()
  .regex(/^[0-9]+$/)
  .openapi({ example: "1500000000000000000", description: "decimal string of wei" });

/** ISO 8601 UTC timestamp. */
export const IsoTime = z.iso.datetime().openapi({ example: "2026-01-02T03:04:05.000Z" });

/** An integer query value: a number string, refused (never clamped) outside [min, max]. */
export function intQuery(o: { min: number; max: number; default: number; description: string }) {
  return z.coerce
    .number({ error: "must be an integer" })
    .int("must be an integer")
    .min(o.min, `must be at least ${o.min}`)
    .max(o.max, `must be at most ${o.max}`)
    .default(o.default)
    .openapi({ type: "integer", description: o.description, example: o.default });
}

/** `limit` of a list: `what` per page, within the pagination limits. */
export function pageLimit(what: string) {
  return intQuery({
    min: 1,
    max: PAGINATION.maxLimit,
    default: PAGINATION.defaultLimit,
    description: `${what} per page, 1-${PAGINATION.maxLimit}`,
  });
}

/** `limit` of every list: items per page. */
const PageLimit = pageLimit("items");

/** `limit` and `offset` of offset lists. */
export const OffsetQuery = z.object({
  limit: PageLimit,
  offset: intQuery({
    min: 0,
    max: PAGINATION.maxOffset,
    default: 0,
    description: "items to skip",
  }),
});

/** One of `values`, refused with the list of them. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.join(", ")}` });
}

/** A query flag given as `true` or `false`. */
export const BoolQuery = z
  .enum(["true", "false"], { error: "must be true or false" })
  .transform((v) => v === "true");

/** An optional query flag, documented as the string it is sent as. */
export function flagQuery(description: string) {
  return BoolQuery.optional().openapi({ type: "string", enum: ["true", "false"], description });
}

/** `data` of an offset list. */
export function offsetList<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int().nonnegative(),
    limit: z.number().int().positive(),
    offset: z.number().int().nonnegative(),
  });
}

/** The query of every cursor list: a page size and the previous page's `nextCursor`. */
export const CursorQuery = z.object({
  limit: PageLimit,
  cursor: z
    .string()
    .max(PAGINATION.maxCursorLength)
    .optional()
    .openapi({ description: "nextCursor of the previous page" }),
});

/** `data` of a cursor list: `nextCursor` is null on the last page. */
export function cursorList<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

/** The JSON response entry of a route, for `createRoute({ responses })`. */
export function jsonResponse<T extends z.ZodType>(description: string, schema: T) {
  return { description, content: { "application/json": { schema } } };
}

/** An error response entry of a route: the error envelope under `description`. */
export function errorResponse(description: string) {
  return jsonResponse(description, ErrorEnvelope);
}

/** The required JSON body of a route, for `createRoute({ request: { body } })`. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

/** Error responses every data route can give besides its own. */
export const COMMON_ERRORS = {
  400: errorResponse("A parameter is malformed or out of range"),
  429: errorResponse("Too many requests; wait `Retry-After` seconds"),
  500: errorResponse("Server-side problem; retry with backoff"),
  503: jsonResponse(
    "The chain index is not published yet (first backfill); retry after `Retry-After` seconds",
    ErrorEnvelope,
  ),
} as const;

/**
 * The responses of a data route: its `{ok, data}` answer, its own statuses (`more`: a 404, a
 * 401) and the errors every data route can give.
 *
 * @example
 * createRoute({ ..., responses: dataResponses("The launch", Launch, { 404: errorResponse("…") }) });
 */
export function dataResponses<
  T extends z.ZodType,
  M extends Record<number, unknown> = Record<never, never>,
>(description: string, data: T, more?: M) {
  return { 200: jsonResponse(description, okEnvelope(data)), ...(more as M), ...COMMON_ERRORS };
}

/** `indexedBlock` of chain-derived list envelopes (a client can tell old data). */
export const IndexedBlockField = z
  .string()
  .regex(/^[0-9]+$/)
  .nullable()
  .openapi({
    description:
      "The newest indexed block when this answer was read: the data reflects at least this block (also the `X-Indexed-Block` header). Null before the index is published.",
    example: "1234567",
  });

/** A chain-derived list with the block it was read at. */
export function atIndexedBlock<T extends z.ZodObject>(list: T) {
  return list.extend({ indexedBlock: IndexedBlockField });
}

/** The 304 of a cached read: `sendCached` answers it to a matching `If-None-Match`. */
export const NOT_MODIFIED = {
  304: { description: "Not modified (the `If-None-Match` ETag still holds)" },
} as const;

/** `security` of a route an agent key opens (typed wide: a literal of two shapes confuses createRoute's inference). */
export const AGENT_KEY_SECURITY: Record<string, string[]>[] = [
  { agentKey: [] },
  { agentKeyHeader: [] },
];

/**
 * The agent key's two security schemes (`Authorization: Bearer` or `X-Agent-Api-Key`), named
 * by every route an agent key opens; registered once by `app.ts`.
 */
export function registerAgentKeySecurity(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "agentKey", {
    type: "http",
    scheme: "bearer",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "agentKeyHeader", {
    type: "apiKey",
    in: "header",
    name: "X-Agent-Api-Key",
  });
}
